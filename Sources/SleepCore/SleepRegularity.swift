/// The Sleep Regularity Index of a window (Phillips et al. 2017, as defined in spec
/// section 7): SRI = -100 + 200 x P(same state, asleep or not, at t and t + 24 h) over
/// the instants t where both t and t + 24 h are covered. 100 is a perfectly repeated
/// schedule, 0 is random, -100 perfectly alternating.
///
/// An instant is covered when it lies between local noon of the day before a tracked
/// night's wake day and local noon of that wake day, or between the night's bedtime and
/// wake. It is asleep when it lies inside one of a tracked night's asleep intervals, so
/// awake stretches inside a night are awake. t + 24 h is 86,400 s later in absolute time.
/// Measured exactly by interval arithmetic on whole seconds, which equals the per-minute
/// count whenever the boundaries fall on whole minutes.
public struct SleepRegularity: Sendable, Hashable, Codable {
    /// The index, -100...100.
    public var index: Double
    /// Total length of the paired instants t, seconds (the denominator).
    public var pairedSeconds: Int64
    /// Tracked nights that contributed coverage.
    public var nights: Int

    /// Creates a value.
    public init(index: Double, pairedSeconds: Int64, nights: Int) {
        self.index = index
        self.pairedSeconds = pairedSeconds
        self.nights = nights
    }

    /// The SRI of `nights` (all tracked); `nil` when no instant and its +24 h are both
    /// covered (for example a single night).
    public init?(nights: [Night]) {
        let timeline = MetricTimeline(nights)
        self.init(timeline: timeline.nights[...], source: timeline.source)
    }

    /// The SRI of a window of `source`'s nights.
    init?(timeline nights: ArraySlice<MetricNight>, source: [Night]) {
        var coverage: [TimeSpan] = []
        var asleep: [TimeSpan] = []
        coverage.reserveCapacity(nights.count * 2)
        for item in nights {
            coverage.append(item.coverage)
            coverage.append(TimeSpan(start: item.bedtime, end: item.wake))
            asleep.append(contentsOf: source[item.index].asleepIntervals)
        }
        let covered = RegularitySpans.union(coverage)
        let day: Int64 = 86_400
        let paired = RegularitySpans.intersection(
            covered, RegularitySpans.shifted(covered, by: -day))
        let total = RegularitySpans.measure(paired)
        guard total > 0 else { return nil }
        let asleepUnion = RegularitySpans.union(asleep)
        let asleepNow = RegularitySpans.intersection(asleepUnion, paired)
        let asleepLater = RegularitySpans.intersection(
            RegularitySpans.shifted(asleepUnion, by: -day), paired)
        let both = RegularitySpans.measure(RegularitySpans.intersection(asleepNow, asleepLater))
        let same =
            total - RegularitySpans.measure(asleepNow) - RegularitySpans.measure(asleepLater) + 2
            * both
        self.init(
            index: -100 + 200 * Double(same) / Double(total), pairedSeconds: total,
            nights: nights.count)
    }

    enum CodingKeys: String, CodingKey {
        case index
        case pairedSeconds = "paired_seconds"
        case nights
    }
}

/// Sorted, disjoint half-open interval lists and their set operations, all linear.
private enum RegularitySpans {
    /// Sorts and merges overlapping or touching spans; drops empty ones.
    static func union(_ spans: [TimeSpan]) -> [TimeSpan] {
        let sorted = spans.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        var result: [TimeSpan] = []
        result.reserveCapacity(sorted.count)
        for span in sorted {
            if let last = result.last, span.start <= last.end {
                result[result.count - 1].end = max(last.end, span.end)
            } else {
                result.append(span)
            }
        }
        return result
    }

    /// Intersection of two sorted disjoint lists.
    static func intersection(_ a: [TimeSpan], _ b: [TimeSpan]) -> [TimeSpan] {
        var result: [TimeSpan] = []
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            let start = max(a[i].start, b[j].start)
            let end = min(a[i].end, b[j].end)
            if start < end { result.append(TimeSpan(start: start, end: end)) }
            if a[i].end < b[j].end { i += 1 } else { j += 1 }
        }
        return result
    }

    /// Every span moved by `offset` seconds.
    static func shifted(_ spans: [TimeSpan], by offset: Int64) -> [TimeSpan] {
        spans.map { TimeSpan(start: $0.start + offset, end: $0.end + offset) }
    }

    /// Total length.
    static func measure(_ spans: [TimeSpan]) -> Int64 { spans.reduce(0) { $0 + $1.duration } }
}
