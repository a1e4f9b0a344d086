/// A night together with the local-clock facts every metric needs, computed once.
struct TimelineNight: Sendable {
    /// The night itself.
    let night: Night
    /// `night.wakeDay.daysSinceEpoch`.
    let dayNumber: Int
    /// Local clock seconds after midnight of the bedtime.
    let bedtimeClockSeconds: Int64
    /// Local clock seconds after midnight of the midpoint of onset and wake.
    let midSleepClockSeconds: Int64
    /// Local wall-clock seconds (instant + offset) of bedtime and wake, for display.
    let bedtimeWallSeconds: Int64
    /// Local wall-clock seconds of the wake time.
    let wakeWallSeconds: Int64
    /// Regularity coverage: local noon of the day before the wake day ..< noon of the wake
    /// day, as UTC instants.
    let coverage: TimeSpan

    init(_ night: Night, clock: inout LocalClock) {
        self.night = night
        dayNumber = night.wakeDay.daysSinceEpoch
        let zone = night.timeZoneIdentifier
        bedtimeWallSeconds = clock.localSeconds(zone: zone, at: night.bedtime)
        wakeWallSeconds = clock.localSeconds(zone: zone, at: night.wake)
        bedtimeClockSeconds = floorModulo(bedtimeWallSeconds, 86_400)
        let mid = night.onset + (night.wake - night.onset) / 2
        midSleepClockSeconds = floorModulo(clock.localSeconds(zone: zone, at: mid), 86_400)
        coverage = TimeSpan(
            start: clock.noon(of: night.wakeDay.adding(days: -1), zone: zone),
            end: clock.noon(of: night.wakeDay, zone: zone))
    }
}

/// Nights sorted by wake day with binary search for windows of wake days.
struct NightTimeline: Sendable {
    /// Sorted by wake day, then onset (stable for equal keys).
    let nights: [TimelineNight]

    init(_ input: [Night]) {
        var clock = LocalClock()
        var items = input.map { TimelineNight($0, clock: &clock) }
        items.sort { ($0.dayNumber, $0.night.onset) < ($1.dayNumber, $1.night.onset) }
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
    func slice(_ first: Int, _ last: Int) -> ArraySlice<TimelineNight> {
        guard first <= last else { return nights[0..<0] }
        return nights[lowerBound(first)..<lowerBound(last + 1)]
    }

    /// The nights waking inside `range`.
    func slice(_ range: WakeDayRange) -> ArraySlice<TimelineNight> {
        slice(range.first.daysSinceEpoch, range.last.daysSinceEpoch)
    }
}
