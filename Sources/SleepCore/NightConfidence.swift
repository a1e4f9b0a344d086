/// How far one night can be trusted, in [0, 1] (docs/sleep-rules.md, "Confidence per
/// night"): the product of six factors read from the night and the samples it was built
/// from. Shown, never used: debt, scores and patterns ignore it.
public struct NightConfidence: Sendable, Hashable, Codable {
    /// The kind of data a night is built from.
    public enum DataKind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Core, deep and rem cover at least half of the asleep time.
        case stages
        /// Asleep samples without (enough) stages, as a phone writes.
        case asleepWithoutStages = "asleep_without_stages"
        /// A summary-only import (none is built today: the importer refuses summaries).
        case summaryOnly = "summary_only"
    }

    /// The mark shown beside a night or an aggregate.
    public enum Mark: String, Sendable, Hashable, Codable, CaseIterable {
        /// 0.8 and above.
        case high
        /// 0.5 and above.
        case medium
        /// Below 0.5.
        case low

        /// The mark of a confidence value.
        public init(_ value: Double) {
            self = value >= 0.8 ? .high : value >= 0.5 ? .medium : .low
        }
    }

    /// The product of the factors, rounded to 3 decimals.
    public var value: Double
    /// Share of onset..wake covered by the night's own source's asleep or awake samples.
    public var coverage: Double
    /// The kind of data.
    public var dataKind: DataKind
    /// 1, or the disagreement factor when other sources' asleep time differs by over 60 min.
    public var agreement: Double
    /// Whether the night looks cut short (a watch that stopped while its wearer stayed in bed).
    public var isTruncated: Bool
    /// The plausibility factor of the asleep time.
    public var plausibility: Double
    /// The fragmentation factor.
    public var fragmentation: Double

    /// Creates a value from its factors; `value` is their product with the kind and
    /// truncation factors of `rules`, rounded to 3 decimals.
    public init(
        coverage: Double, dataKind: DataKind, agreement: Double, isTruncated: Bool, plausibility: Double,
        fragmentation: Double, rules: PersonalSleepRules = .standard
    ) {
        self.coverage = coverage
        self.dataKind = dataKind
        self.agreement = agreement
        self.isTruncated = isTruncated
        self.plausibility = plausibility
        self.fragmentation = fragmentation
        let kind: Double =
            switch dataKind {
            case .stages: 1
            case .asleepWithoutStages: rules.unstagedFactor
            case .summaryOnly: rules.summaryOnlyFactor
            }
        let product =
            coverage * kind * agreement * (isTruncated ? rules.truncationFactor : 1) * plausibility * fragmentation
        value = (product * 1000).rounded(.toNearestOrAwayFromZero) / 1000
    }

    /// The mark of ``value``.
    public var mark: Mark { Mark(value) }

    /// The confidence of each night, in the order given, from the samples they were built
    /// from (any order; samples of other nights are ignored).
    public static func assess(
        nights: [Night], samples: [SleepSample], rules: PersonalSleepRules = .standard
    ) -> [NightConfidence] {
        // Sort (start, index) pairs, not the samples themselves: no string is retained or moved.
        var keys: [(start: Int64, index: Int32)] = []
        keys.reserveCapacity(samples.count)
        var longest: Int64 = 0
        for (index, sample) in samples.enumerated() where sample.end > sample.start {
            keys.append((sample.start, Int32(truncatingIfNeeded: index)))
            longest = max(longest, sample.end - sample.start)
        }
        keys.sort { $0.start < $1.start }
        return nights.map { night in
            // Every sample overlapping the night starts in this range.
            let low = lowerBound(keys, night.onset - longest)
            let high = lowerBound(keys, night.wake)
            return assess(night, nearby: keys[low..<high].lazy.map { samples[Int($0.index)] }, rules: rules)
        }
    }

    /// The confidence of one night from samples that include every sample overlapping it.
    public static func assess(
        _ night: Night, nearby samples: some Collection<SleepSample>, rules: PersonalSleepRules = .standard
    ) -> NightConfidence {
        let span = TimeSpan(start: night.onset, end: night.wake)
        var own: [TimeSpan] = []
        var others: [TimeSpan] = []
        var truncated = false
        for sample in samples {
            if sample.stage == .inBed {
                if night.hasStageData, sample.start < night.wake,
                    sample.end >= night.wake + rules.truncationInBedSeconds
                {
                    truncated = true
                }
                continue
            }
            let clipped = TimeSpan(start: max(sample.start, span.start), end: min(sample.end, span.end))
            guard clipped.start < clipped.end else { continue }
            if sample.source == night.source {
                own.append(clipped)
            } else if sample.stage.isAsleep {
                others.append(clipped)
            }
        }
        let length = Double(max(1, span.duration))
        let coverage = min(1, Double(unionLength(own)) / length)
        let otherAsleep = unionLength(others)
        let agreement =
            otherAsleep == 0 || abs(otherAsleep - night.asleepSeconds) <= rules.agreementToleranceSeconds
            ? 1 : rules.disagreementFactor
        let hours = Double(night.asleepSeconds) / 3600
        let plausibility: Double = (4...11).contains(hours) ? 1 : (hours <= 13 ? 0.8 : 0.5)
        let awakeShare = Double(night.awakeSeconds) / length
        let ramp = min(1, max(0, (awakeShare - rules.fragmentationStart) / rules.fragmentationWidth))
        return NightConfidence(
            coverage: coverage, dataKind: night.hasStageData ? .stages : .asleepWithoutStages, agreement: agreement,
            isTruncated: truncated, plausibility: plausibility, fragmentation: 1 - rules.fragmentationDepth * ramp,
            rules: rules)
    }

    /// Total length of the union of spans.
    static func unionLength(_ spans: [TimeSpan]) -> Int64 {
        var total: Int64 = 0
        var currentEnd = Int64.min
        for span in spans.sorted(by: { $0.start < $1.start }) {
            if span.start >= currentEnd {
                total += span.duration
                currentEnd = span.end
            } else if span.end > currentEnd {
                total += span.end - currentEnd
                currentEnd = span.end
            }
        }
        return total
    }

    static func lowerBound(_ keys: [(start: Int64, index: Int32)], _ instant: Int64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid].start < instant { low = mid + 1 } else { high = mid }
        }
        return low
    }

    enum CodingKeys: String, CodingKey {
        case value
        case coverage
        case dataKind = "data_kind"
        case agreement
        case isTruncated = "truncated"
        case plausibility
        case fragmentation
    }
}

/// The confidence of a window's nights: every aggregate carries its night count, the mean
/// confidence, the low nights and a small-sample flag.
public struct ConfidenceSummary: Sendable, Hashable, Codable {
    /// Nights with a known confidence.
    public var nights: Int
    /// Their mean confidence, 3 decimals; absent with none.
    public var meanConfidence: Double?
    /// Nights marked low.
    public var lowNights: Int
    /// Fewer than the rules' small-sample nights (7).
    public var isSmallSample: Bool

    /// Summarises confidence values.
    public init(_ values: [Double], rules: PersonalSleepRules = .standard) {
        nights = values.count
        meanConfidence =
            values.isEmpty
            ? nil : (values.reduce(0, +) / Double(values.count) * 1000).rounded(.toNearestOrAwayFromZero) / 1000
        lowNights = values.count { NightConfidence.Mark($0) == .low }
        isSmallSample = values.count < rules.smallSampleNights
    }

    /// The mark of the mean; `nil` without nights.
    public var mark: NightConfidence.Mark? { meanConfidence.map(NightConfidence.Mark.init) }

    enum CodingKeys: String, CodingKey {
        case nights
        case meanConfidence = "mean_confidence"
        case lowNights = "low_nights"
        case isSmallSample = "small_sample"
    }
}
