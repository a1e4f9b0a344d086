import LedgerStore
import SleepCore
import Testing

@testable import LedgerCLI

// The admin commands move to a target of their own (AdminCLI): the test finds them there
// once it exists.
#if canImport(AdminCLI)
    @testable import AdminCLI
#endif

/// The admin summary's texts name the thresholds of the rules the summary was computed
/// with: each row changes one rule and finds the changed figure where the standard rules'
/// text was.
@Suite("sleepledger-admin summary texts follow the rules")
struct AdminSummaryRulesTests {
    static let user = User(
        id: 1, handle: "anna", timeZoneIdentifier: "Europe/Berlin", goals: SleepGoals(), createdAt: 0)
    /// A summary without nights: no rolling debt, trend or patterns, so each says what it needs.
    static let bare = SummaryBuilder(nights: []).summary(
        horizon: .weekly, asOf: LocalDate(year: 2025, month: 3, day: 16))
    static let plain = AdminStyle(console: CapturedConsole().console, environment: [:])

    static func summaryText(_ rules: MetricRules) -> String {
        AdminSummaryCommand.text(bare, user: user, style: plain, rules: rules).visible
    }

    static let cases: [(name: String, rules: MetricRules, standard: String, changed: String)] = [
        (
            "rolling window", MetricRules(rollingWindowNights: 21, rollingMinimumTrackedNights: 7),
            "Rolling 14 nights fewer than 5 tracked nights in the last 14 days",
            "Rolling 21 nights fewer than 7 tracked nights in the last 21 days"
        ),
        ("trend minimum", MetricRules(trendMinimumNights: 4), "Trend  fewer than 3", "Trend  fewer than 4"),
        (
            "pattern minimum", MetricRules(patternMinimumTrackedNights: 8), "Patterns  fewer than 5",
            "Patterns  fewer than 8"
        ),
    ]

    @Test(arguments: cases)
    func summaryNamesTheRule(name: String, rules: MetricRules, standard: String, changed: String) {
        let before = Self.summaryText(.standard)
        let after = Self.summaryText(rules)
        #expect(before.contains(standard), "\(before)")
        #expect(!after.contains(standard), "\(after)")
        #expect(after.contains(changed), "\(after)")
    }

    @Test("with the estimated need as target, the debt line names the need, not a target")
    func debtAgainstNeed() {
        var summary = Self.bare
        #expect(Self.summaryText(.standard).contains("over 0 nights against a target of 8h"))
        summary.estimatedNeed = SleepNeedEstimate(
            needSeconds: summary.goalBand.targetSeconds, lowSeconds: 7 * 3600, highSeconds: 9 * 3600, method: .prior,
            nightsUsed: 0, effectiveNights: 0, freeNights: 0, workNights: 0, habitualSeconds: nil,
            hiddenDebtSeconds: nil)
        let text = AdminSummaryCommand.text(summary, user: Self.user, style: Self.plain, rules: .standard).visible
        #expect(
            text.contains(
                "over 0 nights against an estimated need of 8h (each night: the need from the nights before it)"),
            "\(text)")
        #expect(!text.contains("target"), "\(text)")
    }

    @Test func lateBedtimeHoursFollowTheRules() {
        let patterns = SleepPatterns(
            trackedNights: 9, lateBedtimes: SleepPatterns.LateBedtimes(lateNights: 4, trackedNights: 9, threshold: 3))
        #expect(
            AdminSummaryCommand.patternLines(patterns) == [
                "Late bedtimes: 4 of 9 nights in bed between 00:00 and 04:59 (more than 3)"
            ])
        #expect(
            AdminSummaryCommand.patternLines(
                patterns, rules: MetricRules(lateBedtimeFromHour: 23, lateBedtimeUntilHour: 4)) == [
                    "Late bedtimes: 4 of 9 nights in bed between 23:00 and 03:59 (more than 3)"
                ])
    }
}
