import SleepCore
import Testing

/// Debt, net balance and severity (spec sections 4 and 8).
@Suite struct DebtTests {
    /// Spec section 8: nights of 6 h and 9 h with an 8 h target: debt 2 h (the surplus does
    /// not cancel it), net balance -2 h + 1 h = -1 h, average balance -30 min.
    @Test func surplusDoesNotCancelDebtButOffsetsBalance() {
        let nights = MetricTestNight.series(
            endingOn: "2025-03-05", asleep: [sleepHours(6), sleepHours(9)])
        let totals = DebtTotals(nights: nights, goals: SleepGoals())
        #expect(totals.debtSeconds == 7200)
        #expect(totals.netBalanceSeconds == -3600)
        #expect(totals.averageNightlyBalanceSeconds == -1800)
        #expect(totals.averageAsleepSeconds == 27_000)
        #expect(totals.trackedNights == 2)
        #expect(totals.severity == .normal)  // exactly 2 h is not above 2 h
    }

    /// Spec section 8: 424, 367 and 349 minutes against 480: shortfalls 56 + 113 + 131 =
    /// 300 minutes = exactly 5 h, which is concerning, not critical.
    @Test func fiveHoursExactlyIsConcerning() {
        let nights = MetricTestNight.series(
            endingOn: "2025-03-05",
            asleep: [sleepMinutes(424), sleepMinutes(367), sleepMinutes(349)])
        let totals = DebtTotals(nights: nights, goals: SleepGoals())
        #expect(totals.debtSeconds == 18_000)
        #expect(totals.severity == .concerning)
    }

    @Test(arguments: [
        (0.0, DebtSeverity.normal),
        (7200.0, .normal),  // exactly 2 h
        (7201.0, .concerning),
        (7200.000000000001, .normal),  // float noise at 2 h rounds away
        (18_000.0, .concerning),  // exactly 5 h
        (18_000.000000000004, .concerning),  // 5.000000000000001 h is 5 h (spec section 0)
        (18_001.0, .critical),
        (100_000.0, .critical),
    ])
    func severity(debtSeconds: Double, expected: DebtSeverity) {
        #expect(DebtSeverity(debtSeconds: debtSeconds) == expected)
    }

    @Test func emptyWindowHasNoDebtAndNoAverages() {
        let totals = DebtTotals(nights: [Night](), goals: SleepGoals())
        #expect(totals.debtSeconds == 0)
        #expect(totals.netBalanceSeconds == 0)
        #expect(totals.trackedNights == 0)
        #expect(totals.averageNightlyBalanceSeconds == nil)
        #expect(totals.averageAsleepSeconds == nil)
        #expect(totals.severity == .normal)
    }

    /// The user's target, not 8 h, drives debt: 7 h asleep against a 7.5 h target is 30 min.
    @Test func userTargetDrivesDebt() {
        let nights = MetricTestNight.series(endingOn: "2025-03-05", asleep: [sleepHours(7)])
        let totals = DebtTotals(
            nights: nights,
            goals: SleepGoals(targetSeconds: sleepHours(7.5), minimumSeconds: sleepHours(6)))
        #expect(totals.debtSeconds == 1800)
    }
}
