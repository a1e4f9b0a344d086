import PostgresClient
public import SleepCore

/// Streams one import's samples into its staging table while the reader reads: each
/// ``append(_:)`` writes one `COPY` row, so memory does not grow with the input.
///
/// With each sample it stores its wake day: the local date of its end in its own zone,
/// else the user's zone, else its printed offset (spec section 2, through
/// `SampleZoneResolver`). The loader takes the earliest wake day among the samples it
/// actually inserts to mark the user's rollups dirty.
///
/// Valid only inside the closure given to ``SampleLoader/load(userID:userTimeZone:audit:_:)``.
public final class SampleSink {
    private let writer: CopyWriter
    private var zones: SampleZoneResolver
    /// Samples appended so far.
    public private(set) var count = 0

    init(writer: CopyWriter, userTimeZone: String?) {
        self.writer = writer
        zones = SampleZoneResolver(userTimeZoneIdentifier: userTimeZone)
    }

    /// Writes one sample into the staging table.
    public func append(_ sample: SleepSample) throws {
        let zone = zones.zone(for: sample)
        let wakeDay = LocalTime.localDate(of: sample.end, in: zone.timeZone)
        try writer.writeRow([
            .text(sample.source), .timestamp(epochSeconds: sample.start), .timestamp(epochSeconds: sample.end),
            .text(sample.stage.rawValue), sample.timeZoneIdentifier.map { .text($0) },
            sample.printedUTCOffset.map { .int64(Int64($0)) }, .date(wakeDay),
        ])
        count += 1
    }
}
