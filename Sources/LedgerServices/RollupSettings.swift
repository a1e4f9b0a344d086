public import SleepCore

/// What one rollup run does (`sleepledger rollup`). Immutable; every field has a default.
/// How far back it reads is `LookBack`'s rule.
public struct RollupSettings: Sendable, Hashable {
    /// Only this user (any letter case); `nil` (default) means every user that needs work.
    public var handle: String?
    /// Only the user with this id (the server's rollup after an upload); `nil` (default)
    /// means no such restriction.
    public var userID: Int64?
    /// Rebuild every selected user's nights from all of its samples and rewrite its
    /// summaries, whether or not anything changed (`--all`). Default `false`: incremental.
    public var isFullRebuild: Bool
    /// The as-of day for every user (`--as-of`); `nil` (default) means each user's local
    /// today, the date of the run's `now` in the user's zone. A day outside
    /// `LocalDate.supportedRange` makes the run refuse to start.
    public var asOf: LocalDate?
    /// Parallel workers, each with its own database connection. Default 1; the CLI's
    /// default is the number of cores. Values below 1 count as 1.
    public var workers: Int
    /// Rules for building nights. Default: the spec's.
    public var nightRules: NightRules
    /// Rules for summaries. Default: the spec's.
    public var metricRules: MetricRules

    /// Creates settings; every default is documented on its property.
    public init(
        handle: String? = nil, userID: Int64? = nil, isFullRebuild: Bool = false, asOf: LocalDate? = nil,
        workers: Int = 1,
        nightRules: NightRules = .standard, metricRules: MetricRules = .standard
    ) {
        self.handle = handle
        self.userID = userID
        self.isFullRebuild = isFullRebuild
        self.asOf = asOf
        self.workers = workers
        self.nightRules = nightRules
        self.metricRules = metricRules
    }
}
