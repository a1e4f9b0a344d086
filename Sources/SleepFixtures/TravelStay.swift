public import SleepCore

/// A stay away from home: nights slept in another zone, whose Apple devices write that
/// zone into every sample's `HKTimeZone`.
public struct TravelStay: Sendable, Hashable {
    /// The IANA zone of the stay, e.g. `America/Los_Angeles`.
    public var timeZoneIdentifier: String
    /// The local date of the evening of the first night away.
    public var firstEvening: LocalDate
    /// Number of nights away.
    public var nights: Int

    /// Creates a stay.
    public init(timeZoneIdentifier: String, firstEvening: LocalDate, nights: Int) {
        self.timeZoneIdentifier = timeZoneIdentifier
        self.firstEvening = firstEvening
        self.nights = nights
    }

    /// Whether the night starting on the evening of `date` is spent away.
    public func contains(evening date: LocalDate) -> Bool {
        let offset = date.daysSinceEpoch - firstEvening.daysSinceEpoch
        return offset >= 0 && offset < nights
    }
}
