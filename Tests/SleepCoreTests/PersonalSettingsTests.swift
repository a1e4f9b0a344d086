import SleepCore
import Testing

/// The per-person settings of issue 24 in the summaries: work days for social jet lag,
/// and debt against the estimated need (docs/sleep-rules.md, "Debt against need").
@Suite("Personal settings in summaries")
struct PersonalSettingsTests {
    /// W1's run (9.5, 8.9, 8.5, 8.4, 8.2 h) waking 2026-03-02 ... 06, then 7 h on 2026-03-07.
    static let nights = PersonalTestNights.consecutive(from: "2026-03-02", asleepHours: [9.5, 8.9, 8.5, 8.4, 8.2, 7])
    static let everyDayFree = SleepGoals(workDays: WorkDays(mask: 0), target: .estimatedNeed)

    @Test("with the estimated need, the 7 h night is measured against W1's need from the nights before it")
    func perNightTarget() throws {
        let summary = SummaryBuilder(nights: Self.nights, goals: Self.everyDayFree).summary(
            horizon: .weekly, asOf: wakeDate("2026-03-07"))
        let last = try #require(summary.buckets.last)
        #expect(last.range.first == wakeDate("2026-03-07"))
        #expect(last.debtSeconds == 28_914 - 7 * 3600)
        #expect(last.netBalanceSeconds == 7 * 3600 - 28_914)
        // The first night, 9.5 h against the prior 8.16 h: no debt.
        #expect(summary.buckets.first { $0.range.first == wakeDate("2026-03-02") }?.debtSeconds == 0)
        let need = try #require(summary.estimatedNeed)
        #expect(need.method == .recoveryRun && need.nightsUsed == 6)
        #expect(summary.goalBand.targetSeconds == need.needSeconds)
        #expect(summary.goalBand.minimumSeconds == min(7 * 3600, need.needSeconds))
    }

    @Test("a past night's debt does not move when later nights arrive")
    func noLookAhead() throws {
        let asOf = wakeDate("2026-03-07")
        let before = SummaryBuilder(nights: Self.nights, goals: Self.everyDayFree).summary(horizon: .weekly, asOf: asOf)
        let later = Self.nights + PersonalTestNights.consecutive(from: "2026-03-08", asleepHours: [5, 5, 11])
        let after = SummaryBuilder(nights: later, goals: Self.everyDayFree).summary(horizon: .weekly, asOf: asOf)
        #expect(after == before)
    }

    @Test("with the fixed target, the summaries are exactly as before and carry no estimated need")
    func fixedUnchanged() {
        let fixed = SummaryBuilder(nights: Self.nights, goals: SleepGoals()).summaries(asOf: wakeDate("2026-03-07"))
        let plain = SummaryBuilder(nights: Self.nights).summaries(asOf: wakeDate("2026-03-07"))
        #expect(fixed == plain)
        #expect(fixed.allSatisfy { $0.estimatedNeed == nil })
        // Work days change only which days are free (and so the jet-lag figures), not the debt.
        let weekendWorker = SummaryBuilder(
            nights: Self.nights, goals: SleepGoals(workDays: WorkDays(isoWeekdays: [6, 7]))
        ).summaries(asOf: wakeDate("2026-03-07"))
        #expect(zip(weekendWorker, plain).allSatisfy { $0.debt == $1.debt && $0.buckets == $1.buckets })
    }

    @Test("work days decide the mid-sleep jet lag's free and work nights")
    func workDaysInJetLag() throws {
        // 2026-03-02 is a Monday: five work-day nights and one Saturday night by default.
        let standard = try #require(
            SummaryBuilder(nights: Self.nights).summary(horizon: .weekly, asOf: wakeDate("2026-03-07")).midSleepJetLag)
        #expect(standard.freeDayNights == 1 && standard.workDayNights == 5)
        let weekendWorker = try #require(
            SummaryBuilder(nights: Self.nights, goals: SleepGoals(workDays: WorkDays(isoWeekdays: [6, 7])))
                .summary(horizon: .weekly, asOf: wakeDate("2026-03-07")).midSleepJetLag)
        #expect(weekendWorker.freeDayNights == 5 && weekendWorker.workDayNights == 1)
        #expect(weekendWorker.differenceHours == standard.differenceHours)
    }

    @Test("the score's duration part moves with the need: 8.16 h against a need of 8.16 h scores like 8 h against 8 h")
    func scoreDuration() throws {
        // Two free nights only: every target is the prior, 8.16 h.
        let nights = PersonalTestNights.consecutive(from: "2026-03-07", asleepHours: [8.16, 8.16])
        let estimated = SummaryBuilder(nights: nights, goals: SleepGoals(target: .estimatedNeed)).summary(
            horizon: .weekly, asOf: wakeDate("2026-03-08"))
        let fixed = SummaryBuilder(nights: nights).summary(horizon: .weekly, asOf: wakeDate("2026-03-08"))
        #expect(try #require(estimated.score.components).duration == 100)
        #expect(try #require(fixed.score.components).duration == 98)
    }
}
