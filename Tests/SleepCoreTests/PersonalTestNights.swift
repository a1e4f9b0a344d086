import SleepCore

/// Nights for the personal measures' tests: one night per entry, waking on consecutive
/// days from `first`, each from a bedtime clock time and asleep hours.
enum PersonalTestNights {
    /// Nights waking on consecutive days from `first`, the i-th with `asleepHours[i]` of
    /// sleep from `bedtime`.
    static func consecutive(from first: String, asleepHours: [Double], bedtime: String = "23:00") -> [Night] {
        let firstDay = wakeDate(first)
        return asleepHours.enumerated().map { index, hours in
            MetricTestNight.make(
                wake: firstDay.adding(days: index).description, bedtime: bedtime, asleep: sleepHours(hours))
        }
    }

    /// A night waking on `wake` from `bedtime` lasting `hours` (onset = bedtime, no awake time).
    static func night(_ wake: String, _ bedtime: String, hours: Double, zone: String = "UTC", offset: Int64 = 0)
        -> Night
    {
        MetricTestNight.make(wake: wake, bedtime: bedtime, asleep: sleepHours(hours), zone: zone, utcOffset: offset)
    }

    /// `count` days from `first` (inclusive), as dates.
    static func days(from first: String, count: Int) -> [LocalDate] {
        (0..<count).map { wakeDate(first).adding(days: $0) }
    }
}
