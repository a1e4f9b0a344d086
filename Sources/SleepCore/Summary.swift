/// Everything SleepLedger reports for one user, one horizon and one as-of day (spec
/// sections 4-7), as one stable JSON value. See docs/summary-json.md for the shape.
///
/// Keys are snake_case; durations are whole seconds (averages rounded to the nearest
/// second), fractions are 0-1 numbers, dates are `YYYY-MM-DD`; absent values are omitted.
public struct Summary: Sendable, Hashable, Codable {
    /// Version of this JSON shape; bumped on any incompatible change.
    public static let currentSchemaVersion = 1

    /// Version of the JSON shape (1).
    public var schemaVersion: Int
    /// The as-of day: the user's local today when the rollup ran.
    public var asOf: LocalDate
    /// The horizon.
    public var horizon: Horizon
    /// The horizon's window of wake days.
    public var window: WakeDayRange
    /// Minimum Acceptable to Target Sleep.
    public var goalBand: GoalBand
    /// Debt headline over the window's tracked nights.
    public var debt: DebtTotals
    /// Chart buckets of the window, oldest first, every one listed.
    public var buckets: [HorizonBucket]
    /// Rolling 14-night debt with recovery plans; absent with fewer than 5 tracked nights
    /// in the 14 days ending on the as-of day (independent of the horizon).
    public var rollingDebt: RollingDebt?
    /// Score of the window's tracked nights.
    public var score: SleepScore
    /// The daily horizon's night; absent when no night woke on the as-of day or the day
    /// before (independent of the horizon).
    public var lastNight: LastNightSummary?
    /// Quick stats of the 7 days ending on the as-of day (independent of the horizon).
    public var weekly: WeeklyQuickStats
    /// Trend over the window; absent with fewer than 3 tracked nights.
    public var trend: SleepTrend?
    /// Triggered patterns over the window; absent with fewer than 5 tracked nights.
    public var patterns: SleepPatterns?
    /// Sleep Regularity Index over the window; absent when no paired instants exist.
    public var regularity: SleepRegularity?
    /// Mid-sleep social jet lag over the window; absent unless both free and work days
    /// have a night.
    public var midSleepJetLag: MidSleepJetLag?
    /// With the estimated need as target (issue 24): the need the figures were measured
    /// against as of the as-of day, and how it was found; absent with the fixed target, so
    /// the document is then exactly as before.
    public var estimatedNeed: SleepNeedEstimate?

    /// Creates a summary from its parts.
    public init(
        schemaVersion: Int = Summary.currentSchemaVersion, asOf: LocalDate, horizon: Horizon,
        window: WakeDayRange, goalBand: GoalBand, debt: DebtTotals, buckets: [HorizonBucket],
        rollingDebt: RollingDebt?, score: SleepScore, lastNight: LastNightSummary?,
        weekly: WeeklyQuickStats, trend: SleepTrend?, patterns: SleepPatterns?,
        regularity: SleepRegularity?, midSleepJetLag: MidSleepJetLag?, estimatedNeed: SleepNeedEstimate? = nil
    ) {
        self.schemaVersion = schemaVersion
        self.asOf = asOf
        self.horizon = horizon
        self.window = window
        self.goalBand = goalBand
        self.debt = debt
        self.buckets = buckets
        self.rollingDebt = rollingDebt
        self.score = score
        self.lastNight = lastNight
        self.weekly = weekly
        self.trend = trend
        self.patterns = patterns
        self.regularity = regularity
        self.midSleepJetLag = midSleepJetLag
        self.estimatedNeed = estimatedNeed
    }

    /// Builds the summary of `nights` (a user's tracked nights, any order) for one horizon.
    /// To build several horizons from the same nights, use ``SummaryBuilder`` once.
    public static func build(
        nights: [Night], goals: SleepGoals = SleepGoals(), horizon: Horizon, asOf: LocalDate,
        rules: MetricRules = .standard
    ) -> Summary {
        SummaryBuilder(nights: nights, goals: goals, rules: rules).summary(
            horizon: horizon, asOf: asOf)
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case asOf = "as_of"
        case horizon
        case window
        case goalBand = "goal_band"
        case debt
        case buckets
        case rollingDebt = "rolling_debt"
        case score
        case lastNight = "last_night"
        case weekly
        case trend
        case patterns
        case regularity
        case midSleepJetLag = "mid_sleep_jet_lag"
        case estimatedNeed = "estimated_need"
    }
}
