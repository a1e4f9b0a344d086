/// The scalars of a night that every metric needs, with its local-clock facts computed
/// once. Kept free of the night's arrays and strings so window loops stay cheap.
struct MetricNight: Sendable {
    /// Position of the full `Night` in ``MetricTimeline/source``.
    let index: Int
    /// `wakeDay.daysSinceEpoch`.
    let dayNumber: Int
    /// Whether the wake day is a free day (not one of the person's work days; Saturday or
    /// Sunday by default).
    let isFreeDay: Bool
    /// The target this night's debt is measured against: the fixed target, or the need
    /// estimated from the nights before it.
    let targetSeconds: Int64
    /// Asleep seconds.
    let asleepSeconds: Int64
    /// asleep / time in bed.
    let efficiency: Double
    /// Whether core, deep and rem cover at least half of the asleep time.
    let hasStageData: Bool
    /// Deep seconds.
    let deepSeconds: Int64
    /// REM seconds.
    let remSeconds: Int64
    /// Bedtime and wake instants (UTC seconds).
    let bedtime: Int64
    /// Wake instant.
    let wake: Int64
    /// Local clock seconds after midnight of the bedtime.
    let bedtimeClockSeconds: Int64
    /// Local clock seconds after midnight of the midpoint of onset and wake.
    let midSleepClockSeconds: Int64
    /// Local wall-clock seconds (instant + offset) of bedtime, for display.
    let bedtimeWallSeconds: Int64
    /// Local wall-clock seconds of the wake time.
    let wakeWallSeconds: Int64
    /// Regularity coverage: local noon of the day before the wake day ..< noon of the wake
    /// day, as UTC instants.
    let coverage: TimeSpan

    init(_ night: Night, index: Int, clock: inout MetricZoneClock, workDays: WorkDays, targetSeconds: Int64) {
        self.index = index
        dayNumber = night.wakeDay.daysSinceEpoch
        isFreeDay = !workDays.isWorkDay(night.wakeDay)
        self.targetSeconds = targetSeconds
        asleepSeconds = night.asleepSeconds
        efficiency = night.efficiency
        hasStageData = night.hasStageData
        deepSeconds = night.stages.deep
        remSeconds = night.stages.rem
        bedtime = night.bedtime
        wake = night.wake
        let zone = night.timeZoneIdentifier
        let coverageStart = clock.noon(of: night.wakeDay.adding(days: -1), zone: zone)
        bedtimeWallSeconds = clock.localSeconds(zone: zone, at: night.bedtime)
        bedtimeClockSeconds = MetricZoneClock.floorModulo(bedtimeWallSeconds, 86_400)
        let mid = night.onset + (night.wake - night.onset) / 2
        midSleepClockSeconds = MetricZoneClock.floorModulo(
            clock.localSeconds(zone: zone, at: mid), 86_400)
        wakeWallSeconds = clock.localSeconds(zone: zone, at: night.wake)
        coverage = TimeSpan(start: coverageStart, end: clock.noon(of: night.wakeDay, zone: zone))
    }
}

/// Nights sorted by wake day with binary search for windows of wake days.
struct MetricTimeline: Sendable {
    /// The full nights, sorted by wake day, then onset.
    let source: [Night]
    /// Their metric scalars, in the same order.
    let nights: [MetricNight]

    /// Sorts `input`; free days are those outside `workDays`, and each night's target is
    /// `target` or, when given, `nightTargets[wake day number]`.
    init(
        _ input: [Night], workDays: WorkDays = .mondayToFriday, target: Int64 = SleepGoals().targetSeconds,
        nightTargets: [Int: Int64]? = nil
    ) {
        // Sort small keys, then gather, instead of moving whole nights around.
        let keys = input.indices.map {
            (day: input[$0].wakeDay.daysSinceEpoch, onset: input[$0].onset, index: $0)
        }
        .sorted { ($0.day, $0.onset, $0.index) < ($1.day, $1.onset, $1.index) }
        let sorted = keys.map { input[$0.index] }
        var clock = MetricZoneClock()
        var items: [MetricNight] = []
        items.reserveCapacity(sorted.count)
        for (index, night) in sorted.enumerated() {
            let day = night.wakeDay.daysSinceEpoch
            items.append(
                MetricNight(
                    night, index: index, clock: &clock, workDays: workDays,
                    targetSeconds: nightTargets?[day] ?? target))
        }
        source = sorted
        nights = items
    }

    /// Index of the first night whose wake day number is at least `day`.
    func lowerBound(_ day: Int) -> Int {
        var low = 0
        var high = nights.count
        while low < high {
            let mid = (low + high) / 2
            if nights[mid].dayNumber < day { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The nights waking on `first...last` (inclusive day numbers).
    func slice(_ first: Int, _ last: Int) -> ArraySlice<MetricNight> {
        guard first <= last else { return nights[0..<0] }
        return nights[lowerBound(first)..<lowerBound(last + 1)]
    }

    /// The nights waking inside `range`.
    func slice(_ range: WakeDayRange) -> ArraySlice<MetricNight> {
        slice(range.first.daysSinceEpoch, range.last.daysSinceEpoch)
    }
}
