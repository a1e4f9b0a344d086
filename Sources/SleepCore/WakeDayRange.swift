/// An inclusive range of wake days, `first...last`. Encoded as
/// `{"first": "YYYY-MM-DD", "last": "YYYY-MM-DD"}`.
public struct WakeDayRange: Sendable, Hashable, Codable {
    /// The first wake day in the range.
    public var first: LocalDate
    /// The last wake day in the range (inclusive).
    public var last: LocalDate

    /// Creates a range; `first` should not be after `last`.
    public init(first: LocalDate, last: LocalDate) {
        self.first = first
        self.last = last
    }

    /// Number of days in the range (0 if `first` is after `last`).
    public var dayCount: Int { max(0, last.daysSinceEpoch - first.daysSinceEpoch + 1) }

    /// Whether `day` lies in the range.
    public func contains(_ day: LocalDate) -> Bool {
        let n = day.daysSinceEpoch
        return n >= first.daysSinceEpoch && n <= last.daysSinceEpoch
    }

    enum CodingKeys: String, CodingKey {
        case first
        case last
    }
}
