/// A sleep-analysis record as a reader found it, before validation (spec section 1):
/// fractional instants, the export's `value` text, and where it was read.
///
/// ``SampleValidator`` turns these into ``SleepSample`` values plus diagnostics.
public struct RawSleepSample: Sendable, Hashable {
    /// The recording source (`sourceName`).
    public var source: String
    /// Start instant in seconds since 1970-01-01T00:00:00Z, possibly fractional.
    public var start: Double
    /// End instant in seconds since 1970-01-01T00:00:00Z, possibly fractional.
    public var end: Double
    /// The export's `value` attribute, e.g. `HKCategoryValueSleepAnalysisAsleepCore`.
    public var value: String
    /// The `HKTimeZone` metadata value, when present.
    public var timeZoneIdentifier: String?
    /// The UTC offset printed with the record, in seconds (the phone's offset at export time).
    public var printedUTCOffset: Int32?
    /// Where the record was read, for diagnostics.
    public var location: SampleLocation?

    /// Creates a raw record.
    public init(
        source: String, start: Double, end: Double, value: String,
        timeZoneIdentifier: String? = nil, printedUTCOffset: Int32? = nil,
        location: SampleLocation? = nil
    ) {
        self.source = source
        self.start = start
        self.end = end
        self.value = value
        self.timeZoneIdentifier = timeZoneIdentifier
        self.printedUTCOffset = printedUTCOffset
        self.location = location
    }
}
