import SleepCore
import SleepFixtures
import Testing

/// The worked checks of spec section 8 that span both halves of SleepCore: raw
/// `SleepSample`s go through `NightBuilder`, and the nights it returns go through
/// `Summary`, `DebtTotals` and `SleepScore`. Every expected number is worked out by hand
/// from the spec (8 h target, 7 h minimum, thresholds 2 h / 5 h "strictly above").
@Suite("Worked checks: samples to debt and score")
struct EndToEndChecksTests {
    private static let berlin = "Europe/Berlin"
    private static let goals = SleepGoals(targetSeconds: 8 * 3600, minimumSeconds: 7 * 3600)

    /// Builds nights from samples whose texts are Berlin wall-clock times, the user's zone
    /// being Berlin too.
    private static func nights(_ samples: [SleepSample]) -> NightBuildResult {
        build(samples, userZone: berlin)
    }

    /// A Berlin wall-clock sample carrying its `HKTimeZone`, as an Apple device writes it.
    private static func berlinSample(
        _ source: String, _ start: String, _ end: String, _ stage: SleepStage
    ) -> SleepSample {
        sample(source, start, end, stage, zone: berlin, timeZoneIdentifier: berlin)
    }

    private static func day(_ text: String) -> LocalDate {
        LocalDate(text) ?? LocalDate(year: 1970, month: 1, day: 1)
    }

    // MARK: (i) in bed only

    @Test("Only an inBed sample 23:00-06:00: no night, no debt, score 0, Very Poor, no components")
    func inBedOnlyGivesNoDebtAndNoScore() {
        let result = Self.nights([
            Self.berlinSample("Anna's iPhone", "2026-03-01 23:00", "2026-03-02 06:00", .inBed)
        ])
        #expect(result.nights.isEmpty)
        #expect(result.naps.isEmpty)

        let debt = DebtTotals(nights: result.nights, goals: Self.goals)
        #expect(debt.debtSeconds == 0)
        #expect(debt.netBalanceSeconds == 0)
        #expect(debt.trackedNights == 0)
        #expect(debt.averageNightlyBalanceSeconds == nil)
        #expect(debt.severity == .normal)

        let score = SleepScore(nights: result.nights)
        #expect(score.overall == 0)
        #expect(score.grade == .veryPoor)
        #expect(score.components == nil)
        #expect(score.trackedNights == 0)

        // Every horizon as of the morning after says the same: missing data is not debt.
        let summaries = SummaryBuilder(nights: result.nights, goals: Self.goals)
            .summaries(asOf: Self.day("2026-03-02"))
        #expect(summaries.map(\.horizon) == Horizon.allCases)
        for summary in summaries {
            #expect(summary.debt.debtSeconds == 0)
            #expect(summary.debt.trackedNights == 0)
            #expect(summary.score.overall == 0)
            #expect(summary.score.grade == .veryPoor)
            #expect(summary.score.components == nil)
            #expect(summary.lastNight == nil)
            #expect(summary.rollingDebt == nil)
            #expect(summary.buckets.allSatisfy { $0.debtSeconds == 0 && $0.trackedNights == 0 })
        }
    }

    // MARK: (ii) 6 h and 9 h

    @Test("Nights of 6 h and 9 h as samples, 8 h target: debt 2 h (normal), net balance -1 h")
    func sixAndNineHours() throws {
        let result = Self.nights([
            // 6 h: 23:00-05:00, staged pieces that touch.
            Self.berlinSample("Anna's Apple Watch", "2026-03-01 23:00", "2026-03-02 00:30", .core),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 00:30", "2026-03-02 01:30", .deep),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 01:30", "2026-03-02 05:00", .core),
            // 9 h: 22:00-07:00.
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 22:00", "2026-03-03 02:00", .core),
            Self.berlinSample("Anna's Apple Watch", "2026-03-03 02:00", "2026-03-03 05:00", .rem),
            Self.berlinSample("Anna's Apple Watch", "2026-03-03 05:00", "2026-03-03 07:00", .core),
        ])
        let expectedAsleep: [Int64] = [6 * 3600, 9 * 3600]
        #expect(result.nights.map(\.asleepSeconds) == expectedAsleep)
        #expect(result.nights.map(\.wakeDay) == [Self.day("2026-03-02"), Self.day("2026-03-03")])

        let debt = DebtTotals(nights: result.nights, goals: Self.goals)
        #expect(debt.debtSeconds == 7200)  // max(0, 8 - 6) + max(0, 8 - 9) = 2 h
        #expect(debt.netBalanceSeconds == -3600)  // (6 - 8) + (9 - 8) = -1 h
        #expect(debt.averageNightlyBalanceSeconds == -1800)
        #expect(debt.severity == .normal)  // exactly 2 h is not above 2 h

        let weekly = Summary.build(
            nights: result.nights, goals: Self.goals, horizon: .weekly, asOf: Self.day("2026-03-03")
        )
        #expect(weekly.debt == debt)
        let expectedBuckets: [Int64] = [0, 0, 0, 0, 0, 7200, 0]
        #expect(weekly.buckets.map(\.debtSeconds) == expectedBuckets)
    }

    // MARK: (iii) 424, 367 and 349 minutes

    @Test("Nights of 424, 367 and 349 min as samples: debt exactly 5 h (18000 s), concerning")
    func debtOfExactlyFiveHours() throws {
        let watch = "Anna's Apple Watch"
        let result = Self.nights([
            // 424 min asleep: 200 min, a 5-minute Awake sample, then 224 min (onset 23:00).
            Self.berlinSample(watch, "2026-03-09 23:00", "2026-03-10 01:00", .core),
            Self.berlinSample(watch, "2026-03-10 01:00", "2026-03-10 02:20", .deep),
            Self.berlinSample(watch, "2026-03-10 02:20", "2026-03-10 02:25", .awake),
            Self.berlinSample(watch, "2026-03-10 02:25", "2026-03-10 05:00", .core),
            Self.berlinSample(watch, "2026-03-10 05:00", "2026-03-10 06:09", .rem),
            // 367 min asleep, 23:30-05:37, with the iPhone's InBed from 23:10.
            Self.berlinSample("Anna's iPhone", "2026-03-10 23:10", "2026-03-11 05:45", .inBed),
            Self.berlinSample(watch, "2026-03-10 23:30", "2026-03-11 02:00", .core),
            Self.berlinSample(watch, "2026-03-11 02:00", "2026-03-11 03:00", .deep),
            Self.berlinSample(watch, "2026-03-11 03:00", "2026-03-11 05:37", .rem),
            // 349 min asleep from a third-party app without a zone (user zone Berlin):
            // 00:11-06:00.
            sample(
                "Garmin Connect", "2026-03-12 00:11", "2026-03-12 06:00", .asleepUnspecified,
                zone: Self.berlin),
        ])
        let expectedAsleep: [Int64] = [424 * 60, 367 * 60, 349 * 60]
        #expect(result.nights.map(\.asleepSeconds) == expectedAsleep)
        #expect(
            result.nights.map(\.wakeDay)
                == [Self.day("2026-03-10"), Self.day("2026-03-11"), Self.day("2026-03-12")])

        // Shortfalls 56 + 113 + 131 = 300 min = 5 h; no surplus, so net = -debt.
        let debt = DebtTotals(nights: result.nights, goals: Self.goals)
        #expect(debt.debtSeconds == 18_000)
        #expect(debt.netBalanceSeconds == -18_000)
        #expect(debt.severity == .concerning)  // exactly 5 h is not above 5 h

        let summaries = SummaryBuilder(nights: result.nights, goals: Self.goals)
            .summaries(asOf: Self.day("2026-03-12"))
        for summary in summaries where summary.horizon != .daily {
            #expect(summary.debt.debtSeconds == 18_000, "\(summary.horizon)")
            #expect(summary.debt.trackedNights == 3, "\(summary.horizon)")
            #expect(summary.debt.severity == .concerning, "\(summary.horizon)")
        }
        // The daily horizon has only the latest night: 131 min short, which is above 2 h.
        let daily = try #require(summaries.first { $0.horizon == .daily })
        let dailyDebt: Int64 = 131 * 60
        #expect(daily.debt.debtSeconds == dailyDebt)
        #expect(daily.debt.trackedNights == 1)
        #expect(daily.debt.severity == .concerning)
    }

    // MARK: (iv) unspecified then core

    @Test("6.5 h asleepUnspecified then 30 min core: one night, no stage data, stages component 60")
    func unspecifiedThenCoreHasNoStageData() throws {
        let result = Self.nights([
            Self.berlinSample(
                "Anna's Apple Watch", "2026-03-01 23:00", "2026-03-02 05:30", .asleepUnspecified),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 05:30", "2026-03-02 06:00", .core),
        ])
        #expect(result.nights.count == 1)
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(night.asleepSeconds == 7 * 3600)
        #expect(night.stages == StageSeconds(core: 1800, unspecified: 23_400))
        #expect(night.hasStageData == false)  // 30 min staged of 7 h is under half

        // A window of only that night: the daily horizon as of its wake day.
        let daily = Summary.build(
            nights: result.nights, goals: Self.goals, horizon: .daily, asOf: Self.day("2026-03-02"))
        #expect(daily.score.trackedNights == 1)
        let components = try #require(daily.score.components)
        #expect(components.stages == 60)
        // By hand: duration a = 7 h -> 100 - 1 x 10 = 90; efficiency 1 (no InBed, so bedtime
        // = onset) -> min(100, 110) = 100; one night -> consistency 70; stages 60.
        #expect(
            components
                == ScoreComponents(duration: 90, efficiency: 100, consistency: 70, stages: 60))
        // trunc(0.35 x 90 + 0.25 x 100 + 0.20 x 70 + 0.20 x 60) = trunc(82.5) = 82.
        #expect(daily.score.overall == 82)
        #expect(daily.score.grade == .good)
        #expect(daily.debt.debtSeconds == 3600)

        // The same with SleepScore directly.
        #expect(SleepScore(nights: result.nights).components?.stages == 60)
    }

    // MARK: (v) Watch and iPhone on the same night

    @Test(
        "Watch staged 7 h + iPhone unspecified 7.5 h on one night: debt from 7.5 h (0.5 h), never 14.5 h"
    )
    func watchAndPhoneCountOnce() throws {
        let result = Self.nights([
            Self.berlinSample("Anna's Apple Watch", "2026-03-01 23:00", "2026-03-02 00:30", .core),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 00:30", "2026-03-02 01:30", .deep),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 01:30", "2026-03-02 04:00", .core),
            Self.berlinSample("Anna's Apple Watch", "2026-03-02 04:00", "2026-03-02 06:00", .rem),
            Self.berlinSample(
                "Anna's iPhone", "2026-03-01 22:45", "2026-03-02 06:15", .asleepUnspecified),
        ])
        #expect(result.nights.count == 1)
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(night.asleepSeconds == 27_000)  // 7.5 h, most sleep wins
        #expect(night.source == "Anna's iPhone")

        let weekly = Summary.build(
            nights: result.nights, goals: Self.goals, horizon: .weekly, asOf: Self.day("2026-03-02")
        )
        #expect(weekly.debt.debtSeconds == 1800)  // 8 - 7.5 h; 14.5 h would give 0
        #expect(weekly.debt.netBalanceSeconds == -1800)  // 14.5 h would give +6.5 h
        #expect(weekly.debt.trackedNights == 1)
        #expect(weekly.weekly.averageAsleepSeconds == 27_000)
        #expect(weekly.weekly.complianceText == "1/1 nights")
        // The iPhone's night has no stage data: duration 100 - 0.5 x 10 = 95, efficiency
        // 100, consistency 70, stages 60: trunc(33.25 + 25 + 14 + 12) = 84.
        #expect(
            weekly.score.components
                == ScoreComponents(duration: 95, efficiency: 100, consistency: 70, stages: 60))
        #expect(weekly.score.overall == 84)
    }

    // MARK: (vi) a generated history

    /// 60 evenings across the October clock change, in the generator's default shape (Apple
    /// Watch stages, iPhone InBed, a third-party app, naps, missing and broken nights).
    private static let generatedFirstEvening = LocalDate(year: 2025, month: 9, day: 1)
    private static let generatedLastEvening = LocalDate(year: 2025, month: 10, day: 30)

    @Test(
        "Generated 60 days: each weekly debt is the sum of max(0, target - asleep) over the nights waking in the window",
        arguments: [UInt64(3), 11, 2026])
    func generatedHistoryWeeklyDebt(seed: UInt64) throws {
        let samples = SleepStreamGenerator(seed: seed).samples(
            forUser: 0, from: Self.generatedFirstEvening, through: Self.generatedLastEvening)
        let nights = build(samples, userZone: Self.berlin).nights
        #expect(nights.count >= 45)  // 60 evenings, a few missing or untracked
        #expect(Set(nights.map(\.wakeDay)).count == nights.count)

        let target: Int64 = 8 * 3600
        let builder = SummaryBuilder(nights: nights, goals: Self.goals)
        var windowsWithDebtAndSurplus = 0
        let firstAsOf = Self.generatedFirstEvening.daysSinceEpoch + 7
        let lastAsOf = Self.generatedLastEvening.daysSinceEpoch + 1
        for asOfDay in firstAsOf...lastAsOf {
            let asOf = LocalDate(daysSinceEpoch: asOfDay)
            let inWindow = nights.filter {
                $0.wakeDay.daysSinceEpoch >= asOfDay - 6 && $0.wakeDay.daysSinceEpoch <= asOfDay
            }
            var expectedDebt: Int64 = 0
            var expectedNet: Int64 = 0
            for night in inWindow {
                expectedDebt += max(0, target - night.asleepSeconds)
                expectedNet += night.asleepSeconds - target
            }
            if inWindow.contains(where: { $0.asleepSeconds < target })
                && inWindow.contains(where: { $0.asleepSeconds > target })
            {
                windowsWithDebtAndSurplus += 1
            }

            let weekly = builder.summary(horizon: .weekly, asOf: asOf)
            #expect(weekly.debt.debtSeconds == expectedDebt, "as of \(asOf)")
            #expect(weekly.debt.netBalanceSeconds == expectedNet, "as of \(asOf)")
            #expect(weekly.debt.trackedNights == inWindow.count, "as of \(asOf)")
            #expect(
                weekly.buckets.reduce(0) { $0 + $1.debtSeconds } == expectedDebt, "as of \(asOf)")
            // The one-horizon entry point agrees with the builder.
            #expect(
                Summary.build(nights: nights, goals: Self.goals, horizon: .weekly, asOf: asOf).debt
                    == weekly.debt)
        }
        // Surplus nights occur and must not have cancelled any shortfall above.
        #expect(windowsWithDebtAndSurplus > 0)
    }
}
