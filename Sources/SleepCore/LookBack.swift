/// The one rule for how far back data is needed: which nights a summary reads, from which
/// wake day changed samples force nights to be rebuilt, and which samples such a rebuild
/// reads. The importer, the rollup and summaries computed on the fly all ask it.
public enum LookBack {
    /// The nights a summary reads and the part of them whose stage segments it uses.
    public struct Nights: Sendable, Hashable {
        /// The wake days of the nights read.
        public var wakeDays: WakeDayRange
        /// The first wake day whose stage segments are used (the last night's: the as-of day
        /// or the day before); earlier nights are read without them.
        public var segmentsFrom: LocalDate
    }

    /// Days a night's wake day can lie before the wake day computed for one of its samples
    /// in another zone (the night's own zone decides its wake day, and zones differ by up
    /// to 26 hours), and before the day of the fragment that starts it (the night builder
    /// chains fragments across a day boundary). Used twice: the importer marks rollups
    /// dirty from the earliest changed wake day minus this margin, and the rollup rebuilds
    /// from the marked day minus it again.
    public static let wakeDayMarginDays = 1

    /// How long before the first rebuilt wake day's midnight (UTC) samples are read: 2
    /// days. Everything that can decide a night waking on that day or later (its own
    /// samples, fragments chained up to 3 h apart, in-bed samples up to 3 h before onset,
    /// candidates of other sources that overlap it) ends after this instant, because a
    /// wake day's local midnight is at most 14 hours before its UTC midnight and a chained
    /// night is far shorter than the remaining 34 hours.
    public static let sampleSpanSeconds: Int64 = 2 * 86_400

    /// The nights the summaries of `horizons` as of `asOf` read: each horizon's window,
    /// the rolling debt's last ``MetricRules/rollingWindowNights`` wake days, the week of
    /// the quick stats and the last night's two days.
    public static func nights(
        for horizons: some Sequence<Horizon>, asOf: LocalDate, rules: MetricRules = .standard
    ) -> Nights {
        let lastNight = Horizon.daily.window(asOf: asOf).first
        var first = min(
            lastNight, Horizon.weekly.window(asOf: asOf).first,
            asOf.adding(days: -(max(1, rules.rollingWindowNights) - 1)))
        for horizon in horizons { first = min(first, horizon.window(asOf: asOf).first) }
        return Nights(wakeDays: WakeDayRange(first: first, last: asOf), segmentsFrom: lastNight)
    }

    /// The wake days the personal estimates as of `asOf` read (issue 24): the need
    /// estimate's and chronotype's windows ending on that day.
    public static func personalNights(asOf: LocalDate, rules: PersonalSleepRules = .standard) -> WakeDayRange {
        let days = max(1, rules.needWindowDays, rules.chronotypeWindowDays)
        return WakeDayRange(first: asOf.adding(days: -(days - 1)), last: asOf)
    }

    /// The first wake day whose nights an import changed: the earliest wake day among the
    /// samples it added, minus ``wakeDayMarginDays``.
    public static func firstChangedWakeDay(earliestSampleWakeDay day: LocalDate) -> LocalDate {
        day.adding(days: -wakeDayMarginDays)
    }

    /// The first wake day the rollup rebuilds for nights marked changed from `changed` on:
    /// one ``wakeDayMarginDays`` earlier again.
    public static func firstRebuiltWakeDay(changedFrom changed: LocalDate) -> LocalDate {
        changed.adding(days: -wakeDayMarginDays)
    }

    /// The instant (epoch seconds) from which samples are read to rebuild the nights
    /// waking on or after `firstWakeDay`: samples ending at or after it.
    public static func sampleSpanStart(rebuildingFrom firstWakeDay: LocalDate) -> Int64 {
        Int64(firstWakeDay.daysSinceEpoch) * LocalTime.secondsPerDay - sampleSpanSeconds
    }
}
