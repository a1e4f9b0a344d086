import SleepCore
import SleepFixtures
import Testing

@testable import WebPages

/// The dashboard's texts name the thresholds of the rules the summary was computed with,
/// not the spec's constants: each row changes one rule and finds the changed figure where
/// the standard rules' text was.
@Suite("Dashboard texts follow the rules")
struct DashboardRulesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var rules: MetricRules
        var nightRules: NightRules = .standard
        /// Under the standard rules.
        var standard: String
        /// Under `rules` (and `nightRules`).
        var changed: String
        var text: @Sendable (MetricRules, NightRules) -> String
        var testDescription: String { name }
    }

    static let asOf = LocalDate(year: 2025, month: 3, day: 16)
    /// Ten weeks of generated nights up to `asOf`, built as the rollup does.
    static let nights: [Night] = NightBuilder().build(
        from: SleepStreamGenerator(seed: 42).samples(from: LocalDate(year: 2025, month: 1, day: 5), through: asOf),
        userTimeZoneIdentifier: "Europe/Berlin"
    ).nights
    static let summary = SummaryBuilder(nights: nights).summary(horizon: .weekly, asOf: asOf)
    static let bare = SummaryBuilder(nights: []).summary(horizon: .weekly, asOf: asOf)
    static let latePatterns = SleepPatterns(
        trackedNights: 9, lateBedtimes: SleepPatterns.LateBedtimes(lateNights: 4, trackedNights: 9, threshold: 3))

    static let cases: [Case] = [
        Case(
            name: "debt severities", rules: MetricRules(concerningDebtSeconds: 3 * 3600, criticalDebtSeconds: 6 * 3600),
            standard: "Up to 2h is normal, more than 2h concerning, more than 5h critical.",
            changed: "Up to 3h is normal, more than 3h concerning, more than 6h critical."
        ) { rules, _ in DashboardView.debtCard(summary, rules: rules).description },
        Case(
            name: "rolling window", rules: MetricRules(rollingWindowNights: 21),
            standard: "<dt>Rolling 14 nights</dt>", changed: "<dt>Rolling 21 nights</dt>"
        ) { rules, _ in DashboardView.debtCard(summary, rules: rules).description },
        Case(
            name: "rolling minimum", rules: MetricRules(rollingWindowNights: 21, rollingMinimumTrackedNights: 7),
            standard: "Needs at least 5 tracked nights in the last 14 days",
            changed: "Needs at least 7 tracked nights in the last 21 days"
        ) { rules, _ in DashboardView.debtCard(bare, rules: rules).description },
        Case(
            name: "recovery goal", rules: MetricRules(recoveryGoalSeconds: 90 * 60),
            standard: "under 2h", changed: "under 1h 30m"
        ) { rules, _ in DashboardView.debtCard(summary, rules: rules).description },
        Case(
            name: "grade bands", rules: MetricRules(score: ScoreRules(excellentFrom: 95, poorFrom: 30)),
            standard: "Excellent is 90 and up, Good 75, Fair 60, Poor 40.",
            changed: "Excellent is 95 and up, Good 75, Fair 60, Poor 30."
        ) { rules, _ in DashboardView.scoreCard(summary, rules: rules.score).description },
        Case(
            name: "duration references", rules: MetricRules(score: ScoreRules(durationLowerHours: 6.5)),
            standard: "close your average sleep is to 8 hours; 7 to 9 hours scores 90 or more",
            changed: "close your average sleep is to 8 hours; 6.5 to 9 hours scores 85 or more"
        ) { rules, _ in DashboardView.scoreCard(summary, rules: rules.score).description },
        Case(
            name: "component weights",
            rules: MetricRules(score: ScoreRules(durationWeight: 0.4, efficiencyWeight: 0.2)),
            standard: "<strong>Duration</strong> (35%)", changed: "<strong>Duration</strong> (40%)"
        ) { rules, _ in DashboardView.scoreCard(summary, rules: rules.score).description },
        Case(
            name: "efficiency and consistency",
            rules: MetricRules(score: ScoreRules(efficiencyThreshold: 0.9, consistencyScaleMinutes: 90)),
            standard: "85% or more scores at least 95", changed: "90% or more scores at least 100"
        ) { rules, _ in DashboardView.scoreCard(summary, rules: rules.score).description },
        Case(
            name: "trend minimum", rules: MetricRules(trendMinimumNights: 4),
            standard: "A trend needs at least 3 tracked nights", changed: "A trend needs at least 4 tracked nights"
        ) { rules, _ in DashboardView.trendText(nil, window: bare.window, rules: rules).description },
        Case(
            name: "stable trend", rules: MetricRules(trendStableHours: 0.25),
            standard: "differ by less than 0.1 h (6 minutes).", changed: "differ by less than 0.25 h (15 minutes)."
        ) { rules, _ in
            DashboardView.trendText(
                SleepTrend(direction: .stable, differenceHours: 0.05, nights: 6), window: bare.window, rules: rules
            ).description
        },
        Case(
            name: "pattern minimum", rules: MetricRules(patternMinimumTrackedNights: 8),
            standard: "Patterns need at least 5 tracked nights", changed: "Patterns need at least 8 tracked nights"
        ) { rules, _ in DashboardView.patternsCard(bare, rules: rules).description },
        Case(
            name: "late bedtimes",
            rules: MetricRules(lateBedtimeFromHour: 23, lateBedtimeUntilHour: 4, lateBedtimeNightDivisor: 4),
            standard: "between midnight and 5 a.m., more than a third of them",
            changed: "between 11 p.m. and 4 a.m., more than a quarter of them"
        ) { rules, _ in DashboardView.patternFindings(latePatterns, rules: rules).map(\.text).joined() },
        Case(
            name: "what makes a night", rules: .standard,
            nightRules: NightRules(fragmentChainGapSeconds: 2 * 3600, mainSleepMinimumSeconds: 4 * 3600),
            standard: "at least 3 hours of sleep in one stretch (pieces less than 3 hours apart",
            changed: "at least 4 hours of sleep in one stretch (pieces less than 2 hours apart"
        ) { _, nightRules in DashboardAbsence.samplesWithoutNights.explanation(nightRules: nightRules) },
    ]

    @Test(arguments: cases)
    func textNamesTheRule(_ row: Case) {
        let standard = row.text(.standard, .standard)
        let changed = row.text(row.rules, row.nightRules)
        #expect(standard.contains(row.standard), "\(standard)")
        #expect(!changed.contains(row.standard), "\(changed)")
        #expect(changed.contains(row.changed), "\(changed)")
    }

    @Test("the page passes its rules down to the cards")
    func pageUsesItsRules() {
        let rules = MetricRules(rollingWindowNights: 21, score: ScoreRules(excellentFrom: 95))
        let page = DashboardView.page(
            handle: "anna", horizon: .weekly,
            content: .summary(
                Self.summary, windowNights: Self.nights.filter { Self.summary.window.contains($0.wakeDay) }),
            rules: rules)
        let html = page.body.description
        #expect(html.contains("<dt>Rolling 21 nights</dt>"))
        #expect(html.contains("Excellent is 95 and up"))
    }
}
