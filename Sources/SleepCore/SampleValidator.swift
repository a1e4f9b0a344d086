/// Validates and normalises sleep samples (spec sections 0 and 1).
///
/// - instants are rounded to the nearest whole second (halves away from zero);
/// - a sample whose end is not after its start (after rounding) is rejected;
/// - a sample starting or ending outside ``LocalDate/supportedInstants`` (1900 through
///   2199) is rejected;
/// - an unknown `value` is rejected with a diagnostic naming it;
/// - exact duplicates, keyed by (source, start, end, stage) after normalisation, are
///   collapsed to their first occurrence. The zone fields are not part of the key.
///
/// Use one validator per user and import. It can be fed one sample at a time (readers
/// stream) or used through ``validate(_:)`` on a whole batch.
public struct SampleValidator: Sendable {
    private struct DuplicateKey: Hashable {
        var source: String
        var start: Int64
        var end: Int64
        var stage: SleepStage
    }

    private var seen: Set<DuplicateKey> = []
    /// Everything decided so far.
    public private(set) var result = SampleValidationResult()

    /// Creates an empty validator.
    public init() {}

    /// Rounds a fractional instant (seconds since the epoch) to the nearest whole second,
    /// halves away from zero; `nil` when it is not finite or beyond ±2^53 seconds.
    public static func wholeSecond(_ instant: Double) -> Int64? {
        guard instant.isFinite, abs(instant) < 9_007_199_254_740_992 else { return nil }
        return Int64(instant.rounded(.toNearestOrAwayFromZero))
    }

    /// Validates one raw record; returns the diagnostic when it is rejected.
    @discardableResult
    public mutating func add(_ raw: RawSleepSample) -> SampleDiagnostic? {
        guard let stage = SleepStage(healthKitValue: raw.value) else {
            return reject(.unknownValue(raw.value), source: raw.source, location: raw.location)
        }
        guard let start = Self.wholeSecond(raw.start), let end = Self.wholeSecond(raw.end) else {
            return reject(.invalidInstant, source: raw.source, location: raw.location)
        }
        let sample = SleepSample(
            source: raw.source, start: start, end: end, stage: stage,
            timeZoneIdentifier: raw.timeZoneIdentifier, printedUTCOffset: raw.printedUTCOffset)
        return add(sample, location: raw.location)
    }

    /// Validates an already-typed sample (its stage is normalised by construction);
    /// returns the diagnostic when it is rejected.
    @discardableResult
    public mutating func add(_ sample: SleepSample, location: SampleLocation? = nil) -> SampleDiagnostic? {
        guard sample.end > sample.start else {
            return reject(
                .endNotAfterStart(start: sample.start, end: sample.end), source: sample.source,
                location: location)
        }
        guard LocalDate.supportedInstants.contains(sample.start), LocalDate.supportedInstants.contains(sample.end)
        else {
            return reject(.outsideSupportedDates, source: sample.source, location: location)
        }
        let key = DuplicateKey(source: sample.source, start: sample.start, end: sample.end, stage: sample.stage)
        if seen.insert(key).inserted {
            result.accepted.append(sample)
        } else {
            result.duplicateCount += 1
        }
        return nil
    }

    private mutating func reject(
        _ reason: SampleDiagnostic.Reason, source: String, location: SampleLocation?
    ) -> SampleDiagnostic {
        let diagnostic = SampleDiagnostic(reason: reason, source: source, location: location)
        result.diagnostics.append(diagnostic)
        return diagnostic
    }

    /// Validates a batch of raw records.
    public static func validate(_ raws: some Sequence<RawSleepSample>) -> SampleValidationResult {
        var validator = SampleValidator()
        for raw in raws { validator.add(raw) }
        return validator.result
    }

    /// Validates a batch of typed samples; `locations`, when given, is parallel to `samples`.
    public static func validate(
        samples: some Sequence<SleepSample>, locations: [SampleLocation?]? = nil
    ) -> SampleValidationResult {
        var validator = SampleValidator()
        for (index, sample) in samples.enumerated() {
            let location = locations.flatMap { index < $0.count ? $0[index] : nil }
            validator.add(sample, location: location)
        }
        return validator.result
    }
}
