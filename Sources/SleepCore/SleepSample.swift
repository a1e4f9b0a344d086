/// One sleep-analysis sample as SleepCore sees it: whole-second UTC instants, a stage,
/// the recording source and what is known of its local zone (spec sections 1 and 2).
public struct SleepSample: Sendable, Hashable, Codable {
    /// The recording source (`sourceName` in the export), e.g. "Anna's Apple Watch".
    public var source: String
    /// Start instant, whole seconds since 1970-01-01T00:00:00Z.
    public var start: Int64
    /// End instant, whole seconds since 1970-01-01T00:00:00Z.
    public var end: Int64
    /// The stage, already normalised (legacy `Asleep` is ``SleepStage/asleepUnspecified``).
    public var stage: SleepStage
    /// The sample's IANA zone from its `HKTimeZone` metadata, when present.
    public var timeZoneIdentifier: String?
    /// The UTC offset printed with the sample in the export, in seconds. This is the
    /// phone's offset at export time, used only when no zone is known at all.
    public var printedUTCOffset: Int32?

    /// Creates a sample.
    public init(
        source: String, start: Int64, end: Int64, stage: SleepStage,
        timeZoneIdentifier: String? = nil, printedUTCOffset: Int32? = nil
    ) {
        self.source = source
        self.start = start
        self.end = end
        self.stage = stage
        self.timeZoneIdentifier = timeZoneIdentifier
        self.printedUTCOffset = printedUTCOffset
    }

    /// Length in seconds (may be zero or negative for a sample that must be rejected).
    public var duration: Int64 { end - start }
}
