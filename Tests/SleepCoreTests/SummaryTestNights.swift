import SleepCore

/// Seconds in `hours` hours, rounded to a whole second.
func sleepHours(_ hours: Double) -> Int64 { Int64((hours * 3600).rounded()) }

/// Seconds in `minutes` minutes.
func sleepMinutes(_ minutes: Double) -> Int64 { Int64((minutes * 60).rounded()) }

/// A date from `YYYY-MM-DD`; tests only pass valid literals (falls back to 1970-01-01).
func wakeDate(_ text: String) -> LocalDate {
    LocalDate(text) ?? LocalDate(year: 1970, month: 1, day: 1)
}

/// Builds `Night` values directly, the way the night builder would store them, so metric
/// tests do not depend on the night builder.
enum MetricTestNight {
    /// A night waking on `wake`.
    ///
    /// - `bedtime`: local clock "HH:MM"; on the day before the wake day when at or after
    ///   12:00, else on the wake day. Sleep onset is `latency` later.
    /// - `asleep`: asleep seconds, one interval from onset, or two around `awakeAfter` when
    ///   `awake` > 0 (the awake stretch starts `awakeAfter` seconds after onset).
    /// - `deep`/`rem`/`core`: staged seconds; the rest of `asleep` is unspecified;
    ///   stage data when staged seconds cover at least half of `asleep` (spec section 5).
    /// - `utcOffset`: the zone's offset at that time, used to place local clock times.
    static func make(
        wake: String, bedtime: String = "23:00", asleep: Int64, awake: Int64 = 0,
        awakeAfter: Int64? = nil,
        latency: Int64 = 0, zone: String = "UTC", utcOffset: Int64 = 0,
        deep: Int64 = 0, rem: Int64 = 0, core: Int64 = 0
    ) -> Night {
        let wakeDay = wakeDate(wake)
        let parts = bedtime.split(separator: ":").compactMap { Int64($0) }
        let clock = (parts.first ?? 0) * 3600 + (parts.count > 1 ? parts[1] : 0) * 60
        let bedDay = clock >= 12 * 3600 ? wakeDay.adding(days: -1) : wakeDay
        let bedtimeInstant = Int64(bedDay.daysSinceEpoch) * 86_400 + clock - utcOffset
        let onset = bedtimeInstant + latency
        let wakeInstant = onset + asleep + awake
        var intervals = [TimeSpan(start: onset, end: onset + asleep)]
        if awake > 0 {
            let split = awakeAfter ?? asleep / 2
            intervals = [
                TimeSpan(start: onset, end: onset + split),
                TimeSpan(start: onset + split + awake, end: wakeInstant),
            ]
        }
        let staged = deep + rem + core
        let stages = StageSeconds(deep: deep, rem: rem, core: core, unspecified: asleep - staged)
        let inBed = wakeInstant - bedtimeInstant
        return Night(
            wakeDay: wakeDay, timeZoneIdentifier: zone, bedtime: bedtimeInstant, onset: onset,
            wake: wakeInstant, asleepSeconds: asleep, timeInBedSeconds: inBed, awakeSeconds: awake,
            wakeUps: awake >= 120 ? 1 : 0, latencySeconds: latency > 0 ? latency : nil,
            stages: stages,
            efficiency: min(1, Double(asleep) / Double(inBed)),
            hasStageData: staged * 2 >= asleep && staged > 0,
            source: "Test Watch", fragmentCount: 1, setAsideSources: [],
            asleepIntervals: intervals,
            stageSegments: intervals.map {
                StageSegment(stage: staged > 0 ? .core : .asleepUnspecified, span: $0)
            })
    }

    /// Nights on consecutive wake days ending on `last`, one per entry of `asleep`
    /// (oldest first), all with the same bedtime.
    static func series(endingOn last: String, asleep: [Int64], bedtime: String = "23:00") -> [Night] {
        let lastDay = wakeDate(last)
        return asleep.enumerated().map { index, seconds in
            make(
                wake: lastDay.adding(days: index - (asleep.count - 1)).description,
                bedtime: bedtime, asleep: seconds)
        }
    }
}
