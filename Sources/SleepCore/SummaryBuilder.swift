/// Builds ``Summary`` values for one user's nights: sorts them by wake day and reads
/// their local clock times once, then answers any horizon and as-of day with binary
/// searches. Pure: the as-of day, goals and rules are parameters.
public struct SummaryBuilder: Sendable {
    /// The user's goals.
    public let goals: SleepGoals
    /// The metric rules.
    public let rules: MetricRules
    private let timeline: MetricTimeline
    /// The nights with their clock facts, kept only with the estimated need as target.
    private let schedule: NightSchedule?
    private let personalRules: PersonalSleepRules

    /// Prepares `nights` (tracked nights, any order; the night builder's output). With
    /// ``SleepGoals/target`` `estimatedNeed` each night's target is the need estimated
    /// from the nights before it (``SleepNeedEstimate/estimatesBefore(nights:workDays:rules:)``):
    /// give the 90 days before the first summarised night too.
    public init(
        nights: [Night], goals: SleepGoals = SleepGoals(), rules: MetricRules = .standard,
        personalRules: PersonalSleepRules = .standard
    ) {
        self.goals = goals
        self.rules = rules
        self.personalRules = personalRules
        switch goals.target {
        case .fixed:
            schedule = nil
            timeline = MetricTimeline(nights, workDays: goals.workDays, target: goals.targetSeconds)
        case .estimatedNeed:
            let schedule = NightSchedule(nights, workDays: goals.workDays)
            var targets: [Int: Int64] = [:]
            for item in schedule.nights {
                let before = schedule.window(
                    days: personalRules.needWindowDays, endingOn: item.night.wakeDay.adding(days: -1))
                targets[item.dayNumber] = SleepNeedEstimate.estimate(before, rules: personalRules).needSeconds
            }
            self.schedule = schedule
            timeline = MetricTimeline(
                nights, workDays: goals.workDays, target: goals.targetSeconds, nightTargets: targets)
        }
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
        // With the estimated need: the need as of the as-of day is the target of the band,
        // the recovery plans and the weekly minimum (min(minimum, need)).
        let need = schedule.map {
            SleepNeedEstimate.estimate(
                $0.window(days: personalRules.needWindowDays, endingOn: asOf), rules: personalRules)
        }
        var goals = self.goals
        if let need {
            goals.targetSeconds = need.needSeconds
            goals.minimumSeconds = min(goals.minimumSeconds, need.needSeconds)
        }
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
            (day: $0.dayNumber, balance: Double($0.targetSeconds - $0.asleepSeconds))
        }
        let weeklyWindow = Horizon.weekly.window(asOf: asOf)
        let week = timeline.slice(weeklyWindow)

        return Summary(
            asOf: asOf, horizon: horizon, window: window, goalBand: band,
            debt: DebtTotals(timeline: nights, goals: goals, rules: rules),
            buckets: buckets,
            rollingDebt: RollingDebt(
                balances: rollingBalances, goals: goals, asOf: asOf, rules: rules),
            score: SleepScore(
                timeline: nights, rules: rules.score,
                durationShiftSeconds: need == nil || nights.isEmpty
                    ? 0 : Double(nights.reduce(Int64(0)) { $0 + $1.targetSeconds }) / Double(nights.count) - 8 * 3600),
            lastNight: latest.first.map { LastNightSummary($0, night: timeline.source[$0.index]) },
            weekly: WeeklyQuickStats(
                window: weeklyWindow, asleepSeconds: week.map(\.asleepSeconds),
                efficiencies: week.map(\.efficiency),
                goals: goals),
            trend: SleepTrend(asleepSeconds: nights.map(\.asleepSeconds), rules: rules),
            patterns: SleepPatterns(timeline: nights, rules: rules),
            regularity: SleepRegularity(timeline: nights, source: timeline.source),
            midSleepJetLag: MidSleepJetLag(timeline: nights), estimatedNeed: need)
    }
}
