/// A half-open span of time in whole UTC seconds, `start ..< end`.
public struct TimeSpan: Sendable, Hashable, Codable {
    /// First second of the span.
    public var start: Int64
    /// First second after the span.
    public var end: Int64
    /// Creates a span.
    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
    /// Length in seconds.
    public var duration: Int64 { end - start }
}

/// Seconds of sleep per stage within a night (after the stage-precedence union, A2).
public struct StageSeconds: Sendable, Hashable, Codable {
    /// Deep sleep seconds.
    public var deep: Int64
    /// REM sleep seconds.
    public var rem: Int64
    /// Core sleep seconds.
    public var core: Int64
    /// Asleep-unspecified seconds.
    public var unspecified: Int64
    /// Creates per-stage totals.
    public init(deep: Int64 = 0, rem: Int64 = 0, core: Int64 = 0, unspecified: Int64 = 0) {
        self.deep = deep
        self.rem = rem
        self.core = core
        self.unspecified = unspecified
    }
    /// Sum of all four stages: the night's asleep seconds.
    public var total: Int64 { deep + rem + core + unspecified }
}

/// One main sleep per wake day (spec section 3), with every field the spec asks to store.
public struct Night: Sendable, Hashable, Codable {
    /// Local calendar date of the wake time, in ``timeZoneIdentifier``.
    public var wakeDay: LocalDate
    /// The zone used for all of this night's local times: the zone of the sample that
    /// ends the night (its HKTimeZone, else the user's zone, else a fixed offset written
    /// as `GMT+hh:mm`).
    public var timeZoneIdentifier: String
    /// Bedtime instant: start of the qualifying in-bed sample (latency start), else onset.
    public var bedtime: Int64
    /// Sleep onset: start of the first asleep interval.
    public var onset: Int64
    /// Wake time: end of the last asleep interval.
    public var wake: Int64
    /// Asleep seconds: length of the union of asleep intervals.
    public var asleepSeconds: Int64
    /// Time in bed in seconds: wake - bedtime.
    public var timeInBedSeconds: Int64
    /// Seconds between onset and wake that are not asleep (awake samples and gaps).
    public var awakeSeconds: Int64
    /// Number of not-asleep stretches of at least the wake-up minimum (2 min).
    public var wakeUps: Int
    /// Sleep latency in seconds, `nil` when unknown (no qualifying in-bed sample).
    public var latencySeconds: Int64?
    /// Seconds per stage.
    public var stages: StageSeconds
    /// asleep / time in bed, at most 1.
    public var efficiency: Double
    /// Whether core, deep and rem cover at least half of the asleep time.
    public var hasStageData: Bool
    /// The winning source.
    public var source: String
    /// Number of clusters chained into this night (1 when not fragmented).
    public var fragmentCount: Int
    /// Other sources whose overlapping candidates were set aside, sorted, unique.
    public var setAsideSources: [String]
    /// The asleep intervals (sorted, disjoint), kept for regularity and charts.
    public var asleepIntervals: [TimeSpan]
    /// The night's stage segments (sorted, disjoint, stage precedence applied; awake
    /// and gaps omitted), for stage bars in charts.
    public var stageSegments: [StageSegment]

    /// Creates a night; the night builder is the normal source of values.
    public init(
        wakeDay: LocalDate, timeZoneIdentifier: String, bedtime: Int64, onset: Int64, wake: Int64,
        asleepSeconds: Int64, timeInBedSeconds: Int64, awakeSeconds: Int64, wakeUps: Int,
        latencySeconds: Int64?, stages: StageSeconds, efficiency: Double, hasStageData: Bool,
        source: String, fragmentCount: Int, setAsideSources: [String],
        asleepIntervals: [TimeSpan], stageSegments: [StageSegment]
    ) {
        self.wakeDay = wakeDay
        self.timeZoneIdentifier = timeZoneIdentifier
        self.bedtime = bedtime
        self.onset = onset
        self.wake = wake
        self.asleepSeconds = asleepSeconds
        self.timeInBedSeconds = timeInBedSeconds
        self.awakeSeconds = awakeSeconds
        self.wakeUps = wakeUps
        self.latencySeconds = latencySeconds
        self.stages = stages
        self.efficiency = efficiency
        self.hasStageData = hasStageData
        self.source = source
        self.fragmentCount = fragmentCount
        self.setAsideSources = setAsideSources
        self.asleepIntervals = asleepIntervals
        self.stageSegments = stageSegments
    }
}

/// A stretch of one sleep stage inside a night.
public struct StageSegment: Sendable, Hashable, Codable {
    /// The stage (never inBed or awake).
    public var stage: SleepStage
    /// The span.
    public var span: TimeSpan
    /// Creates a segment.
    public init(stage: SleepStage, span: TimeSpan) {
        self.stage = stage
        self.span = span
    }
}

/// A cluster of sleep that is not part of any main sleep (spec section 3, rules 3 and 4):
/// kept for counts and minutes, never part of debt, score or patterns.
public struct Nap: Sendable, Hashable, Codable {
    /// Local date of the nap's end, in ``timeZoneIdentifier``.
    public var wakeDay: LocalDate
    /// Zone used for the nap's local day.
    public var timeZoneIdentifier: String
    /// The recording source.
    public var source: String
    /// First asleep second.
    public var start: Int64
    /// End of the last asleep interval.
    public var end: Int64
    /// Asleep seconds (union of its asleep intervals).
    public var asleepSeconds: Int64

    /// Creates a nap.
    public init(
        wakeDay: LocalDate, timeZoneIdentifier: String, source: String, start: Int64, end: Int64,
        asleepSeconds: Int64
    ) {
        self.wakeDay = wakeDay
        self.timeZoneIdentifier = timeZoneIdentifier
        self.source = source
        self.start = start
        self.end = end
        self.asleepSeconds = asleepSeconds
    }
}
