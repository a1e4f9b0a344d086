/// A night with the clock facts the personal measures read: whether it wakes on a work
/// day, its local wake and mid-sleep clock times, and whether it is a clock-shift night
/// (travel or a daylight-saving change; docs/sleep-rules.md, "Work days and free nights").
struct ScheduledNight: Sendable {
    /// The night.
    let night: Night
    /// `wakeDay.daysSinceEpoch`.
    let dayNumber: Int
    /// Whether the wake day is one of the person's work days.
    let isWorkDay: Bool
    /// Local clock seconds after midnight of the wake.
    let wakeClockSeconds: Int64
    /// Local clock seconds after midnight of the midpoint of onset and wake.
    let midSleepClockSeconds: Int64
    /// Whether the zone's offset changes inside the night or since the previous night.
    let isClockShift: Bool
}

/// The nights in wake-day order with their clock facts, and the free-night rule over a
/// window of them.
struct NightSchedule: Sendable {
    /// All nights, sorted by wake day then onset.
    let nights: [ScheduledNight]

    init(_ input: [Night], workDays: WorkDays) {
        let sorted = input.sorted { ($0.wakeDay, $0.onset) < ($1.wakeDay, $1.onset) }
        var clock = MetricZoneClock()
        var items: [ScheduledNight] = []
        items.reserveCapacity(sorted.count)
        var previousWakeOffset: Int64?
        for night in sorted {
            let zone = night.timeZoneIdentifier
            let bedOffset = clock.offset(zone: zone, at: night.bedtime)
            let wakeOffset = clock.offset(zone: zone, at: night.wake)
            let mid = night.onset + (night.wake - night.onset) / 2
            let shift = bedOffset != wakeOffset || (previousWakeOffset.map { $0 != wakeOffset } ?? false)
            items.append(
                ScheduledNight(
                    night: night, dayNumber: night.wakeDay.daysSinceEpoch, isWorkDay: workDays.isWorkDay(night.wakeDay),
                    wakeClockSeconds: MetricZoneClock.floorModulo(night.wake + wakeOffset, 86_400),
                    midSleepClockSeconds: MetricZoneClock.floorModulo(clock.localSeconds(zone: zone, at: mid), 86_400),
                    isClockShift: shift))
            previousWakeOffset = wakeOffset
        }
        nights = items
    }

    /// The nights waking in the `days` days ending on `last`.
    func window(days: Int, endingOn last: LocalDate) -> ArraySlice<ScheduledNight> {
        let lastNumber = last.daysSinceEpoch
        let firstNumber = lastNumber - max(1, days) + 1
        let low = lowerBound(firstNumber)
        let high = lowerBound(lastNumber + 1)
        return nights[low..<max(low, high)]
    }

    private func lowerBound(_ day: Int) -> Int {
        var low = 0
        var high = nights.count
        while low < high {
            let mid = (low + high) / 2
            if nights[mid].dayNumber < day { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Whether each night of `window` is free: it wakes on a free day, or on a work day at
    /// least `lateWakeSeconds` later than the window's work-day median wake (read around
    /// the circular mean of the work-day wakes). With no work-day night every night is free.
    static func freeFlags(_ window: ArraySlice<ScheduledNight>, rules: PersonalSleepRules) -> [Bool] {
        let workWakes = window.filter(\.isWorkDay).map(\.wakeClockSeconds)
        guard !workWakes.isEmpty else { return window.map { _ in true } }
        let center = MidSleepJetLag.circularMean(workWakes)
        let median = Self.median(workWakes.map { signedDistance(Double($0), from: center) })
        return window.map { item in
            !item.isWorkDay
                || signedDistance(Double(item.wakeClockSeconds), from: center) - median >= Double(rules.lateWakeSeconds)
        }
    }

    /// `value - center` on the 24 h clock, in (-12 h, +12 h].
    static func signedDistance(_ value: Double, from center: Double) -> Double {
        var difference = (value - center).truncatingRemainder(dividingBy: 86_400)
        if difference > 43_200 { difference -= 86_400 }
        if difference <= -43_200 { difference += 86_400 }
        return difference
    }

    /// The shorter distance between two clock times, 0 ... 12 h.
    static func clockDistance(_ a: Double, _ b: Double) -> Double { abs(signedDistance(a, from: b)) }

    /// The median (mean of the middle two for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
