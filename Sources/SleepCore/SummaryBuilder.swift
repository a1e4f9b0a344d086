/// Builds ``Summary`` values for one user's nights: sorts them by wake day and reads
/// their local clock times once, then answers any horizon and as-of day with binary
/// searches. Pure: the as-of day, goals and rules are parameters.
public struct SummaryBuilder: Sendable {
    /// The user's goals.
    public let goals: SleepGoals
    /// The metric rules.
    public let rules: MetricRules
    private let timeline: MetricTimeline

    /// Prepares `nights` (tracked nights, any order; the night builder's output).
    public init(nights: [Night], goals: SleepGoals = SleepGoals(), rules: MetricRules = .standard) {
        self.goals = goals
        self.rules = rules
        timeline = MetricTimeline(nights)
    }

    /// The summaries of all six horizons, in ``Horizon/allCases`` order.
    public func summaries(asOf: LocalDate) -> [Summary] {
        Horizon.allCases.map { summary(horizon: $0, asOf: asOf) }
    }

    /// The summary of one horizon as of `asOf`.
    public func summary(horizon: Horizon, asOf: LocalDate) -> Summary {
        let window = horizon.window(asOf: asOf)
        let asOfDay = asOf.daysSinceEpoch
        let recent = timeline.slice(asOfDay - 1, asOfDay)
        let latest: ArraySlice<MetricNight> = recent.isEmpty ? recent : recent.suffix(1)
        let nights = horizon == .daily ? latest : timeline.slice(window)
        let band = GoalBand(goals: goals)

        var buckets: [HorizonBucket] = []
        var cumulative: Int64 = 0
        for range in horizon.buckets(asOf: asOf) {
            let inBucket = horizon == .daily ? latest : timeline.slice(range)
            let totals = DebtTotals(timeline: inBucket, goals: goals, rules: rules)
            cumulative += totals.debtSeconds
            let asleep = inBucket.reduce(Int64(0)) { $0 + $1.asleepSeconds }
            let below =
                totals.trackedNights > 0
                && band.isBelowMinimum(asleepSeconds: Double(asleep) / Double(totals.trackedNights))
            buckets.append(
                HorizonBucket(
                    range: range, debtSeconds: totals.debtSeconds,
                    netBalanceSeconds: totals.netBalanceSeconds,
                    trackedNights: totals.trackedNights,
                    averageAsleepSeconds: totals.averageAsleepSeconds,
                    isBelowMinimum: below, cumulativeDebtSeconds: cumulative))
        }

        let span = max(1, rules.rollingWindowNights)
        let rollingBalances = timeline.slice(asOfDay - span + 1, asOfDay).map {
            (day: $0.dayNumber, balance: Double(goals.targetSeconds - $0.asleepSeconds))
        }
        let weeklyWindow = Horizon.weekly.window(asOf: asOf)
        let week = timeline.slice(weeklyWindow)

        return Summary(
            asOf: asOf, horizon: horizon, window: window, goalBand: band,
            debt: DebtTotals(timeline: nights, goals: goals, rules: rules),
            buckets: buckets,
            rollingDebt: RollingDebt(
                balances: rollingBalances, goals: goals, asOf: asOf, rules: rules),
            score: SleepScore(timeline: nights, rules: rules.score),
            lastNight: latest.first.map { LastNightSummary($0, night: timeline.source[$0.index]) },
            weekly: WeeklyQuickStats(
                window: weeklyWindow, asleepSeconds: week.map(\.asleepSeconds),
                efficiencies: week.map(\.efficiency),
                goals: goals),
            trend: SleepTrend(asleepSeconds: nights.map(\.asleepSeconds), rules: rules),
            patterns: SleepPatterns(timeline: nights, rules: rules),
            regularity: SleepRegularity(timeline: nights, source: timeline.source),
            midSleepJetLag: MidSleepJetLag(timeline: nights))
    }
}
