/// The daily horizon's night (spec section 6): the latest night waking on the as-of day
/// or the day before, with its local times, stage proportions and bar segments.
public struct LastNightSummary: Sendable, Hashable, Codable {
    /// The night's wake day.
    public var wakeDay: LocalDate
    /// The zone its local times are read in.
    public var timeZoneIdentifier: String
    /// Asleep seconds (the "duration" of the night).
    public var asleepSeconds: Int64
    /// Time in bed, seconds (wake - bedtime).
    public var timeInBedSeconds: Int64
    /// asleep / time in bed.
    public var efficiency: Double
    /// Bedtime as a UTC instant (seconds since 1970).
    public var bedtime: Int64
    /// Wake time as a UTC instant.
    public var wake: Int64
    /// Local bedtime, `YYYY-MM-DDTHH:MM:SS` in ``timeZoneIdentifier``.
    public var bedtimeLocal: String
    /// Local wake time, `YYYY-MM-DDTHH:MM:SS` in ``timeZoneIdentifier``.
    public var wakeLocal: String
    /// Stage shares over (asleep + awake) time.
    public var stageProportions: StageProportions
    /// Stage segments for the bed-to-wake bar.
    public var stageSegments: [StageSegment]

    /// Creates a summary from already computed figures.
    public init(
        wakeDay: LocalDate, timeZoneIdentifier: String, asleepSeconds: Int64,
        timeInBedSeconds: Int64,
        efficiency: Double, bedtime: Int64, wake: Int64, bedtimeLocal: String, wakeLocal: String,
        stageProportions: StageProportions, stageSegments: [StageSegment]
    ) {
        self.wakeDay = wakeDay
        self.timeZoneIdentifier = timeZoneIdentifier
        self.asleepSeconds = asleepSeconds
        self.timeInBedSeconds = timeInBedSeconds
        self.efficiency = efficiency
        self.bedtime = bedtime
        self.wake = wake
        self.bedtimeLocal = bedtimeLocal
        self.wakeLocal = wakeLocal
        self.stageProportions = stageProportions
        self.stageSegments = stageSegments
    }

    /// Summarises `night`, reading local times in its own zone.
    public init(night: Night) {
        let timeline = MetricTimeline([night])
        self.init(timeline.nights[0], night: night)
    }

    init(_ item: MetricNight, night: Night) {
        self.init(
            wakeDay: night.wakeDay, timeZoneIdentifier: night.timeZoneIdentifier,
            asleepSeconds: night.asleepSeconds, timeInBedSeconds: night.timeInBedSeconds,
            efficiency: night.efficiency, bedtime: night.bedtime, wake: night.wake,
            bedtimeLocal: LastNightSummary.format(wall: item.bedtimeWallSeconds),
            wakeLocal: LastNightSummary.format(wall: item.wakeWallSeconds),
            stageProportions: StageProportions(night: night), stageSegments: night.stageSegments)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of local wall-clock seconds since 1970-01-01T00:00.
    static func format(wall: Int64) -> String {
        let day = LocalDate(daysSinceEpoch: Int(MetricZoneClock.floorDivide(wall, 86_400)))
        let second = MetricZoneClock.floorModulo(wall, 86_400)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(day)T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
    }

    enum CodingKeys: String, CodingKey {
        case wakeDay = "wake_day"
        case timeZoneIdentifier = "time_zone"
        case asleepSeconds = "asleep_seconds"
        case timeInBedSeconds = "time_in_bed_seconds"
        case efficiency
        case bedtime
        case wake
        case bedtimeLocal = "bedtime_local"
        case wakeLocal = "wake_local"
        case stageProportions = "stage_proportions"
        case stageSegments = "stage_segments"
    }
}
