import SleepCore
import Testing

/// Debt series of a horizon through `Summary` (spec section 4).
@Suite struct HorizonSeriesTests {
    /// Monthly as of 2025-03-31 (8 h target, 7 h minimum):
    /// - 03-01..03-02: 6 h -> debt 2 h, net -2 h, below minimum, cumulative 2 h
    /// - 03-03..03-09: 9 h and 7.5 h -> debt 0.5 h, net +0.5 h, average 8.25 h, cumulative 2.5 h
    /// - three empty weeks: 0 nights, no average, not below, cumulative stays 2.5 h
    /// - 03-31: 5 h -> debt 3 h, cumulative 5.5 h
    /// A 4 h night on 02-28 is outside the window. Headline: debt 5.5 h (critical), net -4.5 h,
    /// average balance -16,200 / 4 = -4,050 s.
    @Test func monthlySeries() {
        let nights = [
            MetricTestNight.make(wake: "2025-02-28", asleep: sleepHours(4)),
            MetricTestNight.make(wake: "2025-03-02", asleep: sleepHours(6)),
            MetricTestNight.make(wake: "2025-03-03", asleep: sleepHours(9)),
            MetricTestNight.make(wake: "2025-03-04", asleep: sleepHours(7.5)),
            MetricTestNight.make(wake: "2025-03-31", asleep: sleepHours(5)),
        ]
        let summary = Summary.build(
            nights: nights.shuffled(), horizon: .monthly, asOf: wakeDate("2025-03-31"))
        let b = summary.buckets
        #expect(b.count == 6)
        #expect(b.map(\.debtSeconds) == [7200, 1800, 0, 0, 0, 10_800])
        #expect(b.map(\.netBalanceSeconds) == [-7200, 1800, 0, 0, 0, -10_800])
        #expect(b.map(\.trackedNights) == [1, 2, 0, 0, 0, 1])
        #expect(b.map(\.averageAsleepSeconds) == [21_600, 29_700, nil, nil, nil, 18_000])
        #expect(b.map(\.isBelowMinimum) == [true, false, false, false, false, true])
        #expect(b.map(\.cumulativeDebtSeconds) == [7200, 9000, 9000, 9000, 9000, 19_800])
        #expect(summary.debt.debtSeconds == 19_800)
        #expect(summary.debt.netBalanceSeconds == -16_200)
        #expect(summary.debt.averageNightlyBalanceSeconds == -4050)
        #expect(summary.debt.trackedNights == 4)
        #expect(summary.debt.severity == .critical)
        #expect(summary.goalBand == GoalBand(minimumSeconds: 25_200, targetSeconds: 28_800))
    }

    /// A bucket average of exactly the minimum is not below it.
    @Test func averageAtTheMinimumIsNotBelow() {
        let nights = [
            MetricTestNight.make(wake: "2025-03-03", asleep: sleepHours(6.5)),
            MetricTestNight.make(wake: "2025-03-04", asleep: sleepHours(7.5)),
        ]
        let summary = Summary.build(nights: nights, horizon: .weekly, asOf: wakeDate("2025-03-04"))
        #expect(
            summary.buckets.map(\.isBelowMinimum) == [
                false, false, false, false, false, true, false,
            ])
        let month = Summary.build(nights: nights, horizon: .monthly, asOf: wakeDate("2025-03-04"))
        // 2025-03-03..03-04 is one ISO week bucket averaging exactly 7 h
        #expect(month.buckets.last?.averageAsleepSeconds == 25_200)
        #expect(month.buckets.last?.isBelowMinimum == false)
    }

    /// Daily: the latest night waking on the as-of day, else the day before, else none.
    @Test func dailyUsesTheLatestNight() throws {
        let nights = [
            MetricTestNight.make(wake: "2025-03-03", asleep: sleepHours(5)),
            MetricTestNight.make(wake: "2025-03-04", asleep: sleepHours(6)),
            MetricTestNight.make(wake: "2025-03-05", asleep: sleepHours(7)),
        ]
        let today = Summary.build(nights: nights, horizon: .daily, asOf: wakeDate("2025-03-05"))
        #expect(today.debt.debtSeconds == 3600)
        #expect(today.debt.trackedNights == 1)
        #expect(today.buckets.count == 1)
        #expect(today.lastNight?.wakeDay == wakeDate("2025-03-05"))
        #expect(today.score.trackedNights == 1)

        let dayAfter = Summary.build(nights: nights, horizon: .daily, asOf: wakeDate("2025-03-06"))
        #expect(dayAfter.lastNight?.wakeDay == wakeDate("2025-03-05"))
        #expect(dayAfter.debt.debtSeconds == 3600)

        let twoDaysAfter = Summary.build(
            nights: nights, horizon: .daily, asOf: wakeDate("2025-03-07"))
        #expect(twoDaysAfter.lastNight == nil)
        #expect(twoDaysAfter.debt.trackedNights == 0)
        #expect(twoDaysAfter.buckets.map(\.trackedNights) == [0])
        #expect(twoDaysAfter.score.overall == 0)
        #expect(twoDaysAfter.score.grade == .veryPoor)
        #expect(twoDaysAfter.score.components == nil)
    }

    /// Ten years of nights: bucket nights add up to the window's nights, and the cumulative
    /// debt ends at the headline debt.
    @Test(arguments: Horizon.allCases)
    func seriesAddsUpToTheHeadline(horizon: Horizon) {
        let first = wakeDate("2015-01-01")
        let nights = (0..<3700).map { i in
            MetricTestNight.make(
                wake: first.adding(days: i).description, asleep: sleepHours(6) + Int64(i % 11) * 900
            )
        }
        let builder = SummaryBuilder(nights: nights)
        let summary = builder.summary(horizon: horizon, asOf: wakeDate("2025-02-15"))
        #expect(summary.buckets.reduce(0) { $0 + $1.trackedNights } == summary.debt.trackedNights)
        #expect(summary.buckets.last?.cumulativeDebtSeconds == summary.debt.debtSeconds)
        #expect(summary.debt.trackedNights == (horizon == .daily ? 1 : summary.window.dayCount))
    }
}
