public import SleepCore

/// What one rollup run does (`sleepledger rollup`). Immutable; every field has a default.
public struct RollupSettings: Sendable, Hashable {
    /// Only this user (any letter case); `nil` (default) means every user that needs work.
    public var handle: String?
    /// Rebuild every selected user's nights from all of its samples and rewrite its
    /// summaries, whether or not anything changed (`--all`). Default `false`: incremental.
    public var isFullRebuild: Bool
    /// The as-of day for every user (`--as-of`); `nil` (default) means each user's local
    /// today, the date of the run's `now` in the user's zone.
    public var asOf: LocalDate?
    /// Parallel workers, each with its own database connection. Default 1; the CLI's
    /// default is the number of cores. Values below 1 count as 1.
    public var workers: Int
    /// Rules for building nights. Default: the spec's.
    public var nightRules: NightRules
    /// Rules for summaries. Default: the spec's.
    public var metricRules: MetricRules

    /// Wake days before `rollup_state.dirty_from` that are rebuilt as well: the margin a
    /// night can span. The importer already marks one day before the earliest affected
    /// wake day; this extra day covers a night whose wake day, in the zone of the sample
    /// that ends it, falls a calendar day before the wake day the importer computed in
    /// another zone (zones differ by up to 26 hours).
    public static let rebuildMarginDays = 1

    /// How far before the first rebuilt wake day (its midnight in UTC) samples are read:
    /// 2 days. Everything that can decide a night waking on that day or later (its own
    /// samples, fragments chained up to 3 h apart, in-bed samples up to 3 h before onset,
    /// candidates of other sources that overlap it) ends after this instant, because a
    /// wake day's local midnight is at most 14 hours before its UTC midnight and a chained
    /// night is far shorter than the remaining 34 hours.
    public static let sampleLookbackSeconds: Int64 = 2 * 86_400

    /// Creates settings; every default is documented on its property.
    public init(
        handle: String? = nil, isFullRebuild: Bool = false, asOf: LocalDate? = nil, workers: Int = 1,
        nightRules: NightRules = .standard, metricRules: MetricRules = .standard
    ) {
        self.handle = handle
        self.isFullRebuild = isFullRebuild
        self.asOf = asOf
        self.workers = workers
        self.nightRules = nightRules
        self.metricRules = metricRules
    }
}
