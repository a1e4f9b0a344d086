import SleepCore
import Testing

/// Rolling 14-night debt and recovery projection (spec section 4).
///
/// Powers of r = 0.872 used below: r^1 = 0.872, r^2 = 0.760384, r^3 = 0.663055,
/// r^4 = 0.578184, r^5 = 0.504176, r^6 = 0.439642, r^7 = 0.383368.
/// Sums: r^0..r^1 = 1.872; r^0..r^2 = 2.632384; r^1..r^4 = 2.873623;
/// r^1..r^5 = 3.377799; r^2..r^6 = 2.945441; r^3..r^7 = 2.568425.
@Suite struct DebtRollingTests {
    let asOf = "2025-03-14"

    @Test func hiddenBelowFiveTrackedNights() {
        let nights = MetricTestNight.series(
            endingOn: asOf, asleep: [sleepHours(5), sleepHours(5), sleepHours(5), sleepHours(5)])
        #expect(RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)) == nil)
    }

    /// Nights outside the 14 days do not count: 4 in the window plus one 14 days back.
    @Test func onlyTheLastFourteenWakeDaysCount() {
        var nights = MetricTestNight.series(
            endingOn: asOf, asleep: [sleepHours(5), sleepHours(5), sleepHours(5), sleepHours(5)])
        nights.append(MetricTestNight.make(wake: "2025-02-28", asleep: sleepHours(5)))  // d = 14
        #expect(RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)) == nil)
    }

    /// Five nights of 7 h (1 h short each): whatever the weights, the weighted mean shortfall
    /// is 1 h, times n = 5: 5 h (the float sum is 4.999999999999999 h, which is 5 h: concerning).
    ///
    /// +30 min (balance -0.5 h per simulated night):
    ///   k=1: n=6, (3.377799 - 0.5 x 1) / 4.377799 x 6 = 3.944 h
    ///   k=2: n=7, (2.945441 - 0.5 x 1.872) / 4.817441 x 7 = 2.920 h
    ///   k=3: n=8, (2.568425 - 0.5 x 2.632384) / 5.200809 x 8 = 1.926 h < 2 -> 3 nights
    /// +60 min: k=1: (3.377799 - 1) / 4.377799 x 6 = 3.259; k=2: (2.945441 - 1.872) / 4.817441
    ///   x 7 = 1.560 < 2 -> 2 nights
    /// +90 min: k=1: (3.377799 - 1.5) / 4.377799 x 6 = 2.574; k=2: (2.945441 - 2.808) /
    ///   4.817441 x 7 = 0.200 -> 2 nights
    @Test func fiveShortNightsAndTheirRecovery() throws {
        let nights = MetricTestNight.series(
            endingOn: asOf, asleep: Array(repeating: sleepHours(7), count: 5))
        let rolling = try #require(
            RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)))
        #expect(rolling.debtSeconds == 18_000)
        #expect(rolling.trackedNights == 5)
        #expect(rolling.severity == .concerning)
        #expect(rolling.window == WakeDayRange(first: wakeDate("2025-03-01"), last: wakeDate(asOf)))
        #expect(rolling.recovery.map(\.extraSeconds) == [1800, 3600, 5400])
        #expect(rolling.recovery.map(\.nightsNeeded) == [3, 2, 2])
    }

    /// Five nights of 6 h: 10 h. +90 min: k=1: (2 x 3.377799 - 1.5) / 4.377799 x 6 = 7.203;
    /// k=2: (2 x 2.945441 - 1.5 x 1.872) / 4.817441 x 7 = 4.480;
    /// k=3: (2 x 2.568425 - 1.5 x 2.632384) / 5.200809 x 8 = 1.828 < 2 -> 3 nights.
    @Test func tenHoursNeedThreeNightsAtPlusNinety() throws {
        let nights = MetricTestNight.series(
            endingOn: asOf, asleep: Array(repeating: sleepHours(6), count: 5))
        let rolling = try #require(
            RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)))
        #expect(rolling.debtSeconds == 36_000)
        #expect(rolling.severity == .critical)
        #expect(rolling.recovery[2].nightsNeeded == 3)
        #expect(rolling.recovery[2].isBeyondCap == false)
    }

    /// A cap of 2 simulated nights: the +30 plan (which needs 7) is "more than 2".
    @Test func beyondTheCapIsReportedAsMoreThan() throws {
        let nights = MetricTestNight.series(
            endingOn: asOf, asleep: Array(repeating: sleepHours(6), count: 5))
        let rules = MetricRules(recoveryNightCap: 2)
        let rolling = try #require(
            RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf), rules: rules))
        #expect(rolling.recovery[0].nightsNeeded == nil)
        #expect(rolling.recovery[0].isBeyondCap)
        #expect(rolling.recovery[0].nightCap == 2)
    }

    /// A surplus night repays: last night 10 h (-2 h), the four before 7 h (+1 h each):
    /// (1 x 2.873623 - 2 x 1) / 3.873623 x 5 = 0.873623 / 3.873623 x 5 = 1.12766 h = 4060 s,
    /// already under 2 h, so every plan needs 0 nights.
    @Test func surplusRepaysAndZeroNightsWhenAlreadyUnderGoal() throws {
        let nights = MetricTestNight.series(
            endingOn: asOf,
            asleep: [sleepHours(7), sleepHours(7), sleepHours(7), sleepHours(7), sleepHours(10)])
        let rolling = try #require(
            RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)))
        #expect(abs(Double(rolling.debtSeconds) - 1.127656 * 3600) <= 1)
        #expect(rolling.severity == .normal)
        #expect(rolling.recovery.map(\.nightsNeeded) == [0, 0, 0])
    }

    /// Surplus larger than the debt: rolling debt is max(0, ...) = 0.
    @Test func neverNegative() throws {
        let nights = MetricTestNight.series(
            endingOn: asOf, asleep: Array(repeating: sleepHours(9), count: 6))
        #expect(
            try #require(RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)))
                .debtSeconds == 0)
    }

    /// All 14 tracked, only last night short (0 h asleep, 8 h short): last night's weight is
    /// (1 - r) / (1 - r^14) = 0.128 / 0.853004 = 0.150053, so 14 x 0.150053 x 8 h = 16.806 h.
    @Test func lastNightWeighsFifteenPercentOfAFullWindow() throws {
        var asleep = Array(repeating: sleepHours(8), count: 13)
        asleep.append(0)
        let nights = MetricTestNight.series(endingOn: asOf, asleep: asleep)
        let rolling = try #require(
            RollingDebt(nights: nights, goals: SleepGoals(), asOf: wakeDate(asOf)))
        #expect(rolling.trackedNights == 14)
        #expect(abs(Double(rolling.debtSeconds) / 3600 - 16.805988) < 0.0005)
    }

    /// Untracked days leave gaps; weights renormalise over the tracked nights only.
    /// Tracked at d = 0, 2, 4, 6, 8 with 7 h (+1 h) and d = 1, 3 with 9 h (-1 h).
    /// Weights r^0, r^2, r^4, r^6, r^8 = 1 + 0.760384 + 0.578184 + 0.439642 + 0.334297 =
    /// 3.112507 and r^1, r^3 = 0.872 + 0.663055 = 1.535055; total 4.647562.
    /// (3.112507 - 1.535055) / 4.647562 x 7 = 0.339415 x 7 = 2.37590 h.
    @Test func gapsRenormalise() throws {
        let last = wakeDate(asOf)
        var nights: [Night] = []
        for d in [0, 2, 4, 6, 8] {
            nights.append(
                MetricTestNight.make(wake: last.adding(days: -d).description, asleep: sleepHours(7))
            )
        }
        for d in [1, 3] {
            nights.append(
                MetricTestNight.make(wake: last.adding(days: -d).description, asleep: sleepHours(9))
            )
        }
        let rolling = try #require(RollingDebt(nights: nights, goals: SleepGoals(), asOf: last))
        #expect(rolling.trackedNights == 7)
        #expect(abs(Double(rolling.debtSeconds) / 3600 - 2.375904) < 0.0005)
    }
}
