import Foundation
import SleepCore
import Testing

/// Last night, weekly quick stats, trend and the assembled Summary (spec section 6).
@Suite struct SummaryTests {
    /// 7 h asleep (1 h deep, 1.5 h REM, 4 h core, 0.5 h unspecified) and 1 h awake:
    /// shares of 8 h: 0.125, 0.1875, 0.5, 0.125, 0.0625. Bedtime 23:15 in GMT+02:00.
    @Test func lastNightProportionsAndLocalTimes() throws {
        let night = MetricTestNight.make(
            wake: "2025-03-05", bedtime: "23:15", asleep: sleepHours(7), awake: sleepHours(1),
            zone: "GMT+02:00",
            utcOffset: 7200, deep: sleepHours(1), rem: sleepHours(1.5), core: sleepHours(4))
        let summary = Summary.build(nights: [night], horizon: .weekly, asOf: wakeDate("2025-03-05"))
        let last = try #require(summary.lastNight)
        #expect(
            last.stageProportions
                == StageProportions(
                    deep: 0.125, rem: 0.1875, core: 0.5, awake: 0.125, unspecified: 0.0625))
        let p = last.stageProportions
        #expect(abs(p.deep + p.rem + p.core + p.awake + p.unspecified - 1) < 1e-12)
        #expect(last.bedtimeLocal == "2025-03-04T23:15:00")
        #expect(last.wakeLocal == "2025-03-05T07:15:00")  // 23:15 + 7 h + 1 h
        #expect(last.asleepSeconds == sleepHours(7))
        #expect(last.timeZoneIdentifier == "GMT+02:00")
        #expect(last.stageSegments.count == 2)
    }

    /// Europe/Berlin in summer (UTC+2): a 23:30 local bedtime is 21:30 UTC; the local string
    /// must show 23:30.
    @Test func lastNightInANamedZoneUsesItsSummerOffset() throws {
        let night = MetricTestNight.make(
            wake: "2025-07-10", bedtime: "23:30", asleep: sleepHours(7), zone: "Europe/Berlin",
            utcOffset: 7200)
        let last = LastNightSummary(night: night)
        #expect(last.bedtimeLocal == "2025-07-09T23:30:00")
        #expect(last.wakeLocal == "2025-07-10T06:30:00")
    }

    /// Last 7 days, 5 tracked nights of 7, 6.5, 8, 7 and 6 h against a 7 h minimum: 3
    /// compliant, "3/5 nights", rate 0.6, mean 34.5 / 5 = 6.9 h = 24,840 s. A night 8 days
    /// back is outside.
    @Test func weeklyQuickStats() throws {
        var nights = MetricTestNight.series(
            endingOn: "2025-03-09",
            asleep: [sleepHours(7), sleepHours(6.5), sleepHours(8), sleepHours(7), sleepHours(6)])
        nights.append(MetricTestNight.make(wake: "2025-03-01", asleep: sleepHours(3)))
        let stats = WeeklyQuickStats(
            nights: nights, goals: SleepGoals(), asOf: wakeDate("2025-03-09"))
        #expect(
            stats.window
                == WakeDayRange(first: wakeDate("2025-03-03"), last: wakeDate("2025-03-09")))
        #expect(stats.trackedNights == 5)
        #expect(stats.compliantNights == 3)
        #expect(stats.complianceText == "3/5 nights")
        #expect(stats.complianceRate == 0.6)
        #expect(stats.averageAsleepSeconds == 24_840)
        #expect(abs((stats.averageAsleepHours ?? 0) - 6.9) < 1e-12)
        #expect(stats.averageEfficiency == 1)  // no latency, no awake time in the test nights
    }

    @Test func weeklyQuickStatsWithoutNights() {
        let stats = WeeklyQuickStats(
            nights: [Night](), goals: SleepGoals(), asOf: wakeDate("2025-03-09"))
        #expect(stats.complianceText == "0/0 nights")
        #expect(stats.complianceRate == nil)
        #expect(stats.averageAsleepSeconds == nil)
        #expect(stats.averageEfficiency == nil)
    }

    @Test(arguments: [
        // 6, 7, 8 h: halves of 1 night; 8 - 6 = +2 h
        ([6.0, 7.0, 8.0], SleepTrend.Direction.improving, 2.0),
        ([8.0, 7.0, 6.0], .declining, -2.0),
        // 4 nights: (7.1 + 7.1) / 2 - (7 + 7.05) / 2 = 0.075 -> stable
        ([7.0, 7.05, 7.1, 7.1], .stable, 0.075),
        // exactly 0.1 h (7.1 - 7.0 is 0.0999999999999996 in floating point): not under 0.1
        ([7.0, 9.0, 7.1], .improving, 0.1),
        ([7.1, 9.0, 7.0], .declining, -0.1),
        // 0.095 h: stable
        ([7.0, 5.0, 7.095], .stable, 0.095),
    ])
    func trend(asleepHours: [Double], direction: SleepTrend.Direction, difference: Double) throws {
        let nights = MetricTestNight.series(
            endingOn: "2025-03-09", asleep: asleepHours.map { sleepHours($0) })
        let trend = try #require(SleepTrend(nights: nights.reversed()))
        #expect(trend.direction == direction)
        #expect(abs(trend.differenceHours - difference) < 1e-9)
        #expect(trend.nights == asleepHours.count)
    }

    @Test func noTrendUnderThreeNights() {
        #expect(
            SleepTrend(
                nights: MetricTestNight.series(
                    endingOn: "2025-03-09", asleep: [sleepHours(6), sleepHours(8)])) == nil)
    }

    /// Spec section 8: no tracked night (an in-bed-only record yields no Night): no debt,
    /// score 0, Very Poor, components absent, every optional part absent.
    @Test func summaryWithoutNights() {
        let summary = Summary.build(nights: [], horizon: .monthly, asOf: wakeDate("2025-03-31"))
        #expect(summary.debt.debtSeconds == 0)
        #expect(
            summary.score
                == SleepScore(overall: 0, grade: .veryPoor, components: nil, trackedNights: 0))
        #expect(summary.buckets.count == 6)
        #expect(
            summary.buckets.allSatisfy { $0.trackedNights == 0 && $0.averageAsleepSeconds == nil })
        #expect(summary.rollingDebt == nil)
        #expect(summary.lastNight == nil)
        #expect(summary.trend == nil)
        #expect(summary.patterns == nil)
        #expect(summary.regularity == nil)
        #expect(summary.midSleepJetLag == nil)
        #expect(summary.schemaVersion == 1)
    }

    private func richNights() -> [Night] {
        (0..<40).map { i in
            let wake = wakeDate("2025-02-20").adding(days: i)
            let weekend = wake.isWeekend
            return MetricTestNight.make(
                wake: wake.description, bedtime: weekend ? "01:10" : "23:05",
                asleep: weekend ? sleepHours(8.5) : sleepHours(6) + Int64(i % 3) * 600,
                awake: sleepMinutes(20),
                latency: sleepMinutes(10), zone: "Europe/Berlin", utcOffset: 3600,
                deep: sleepHours(0.5), rem: sleepHours(1), core: sleepHours(4))
        }
    }

    @Test func jsonRoundTripAndShape() throws {
        let builder = SummaryBuilder(nights: richNights())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for summary in builder.summaries(asOf: wakeDate("2025-03-31")) {
            let data = try encoder.encode(summary)
            let decoded = try JSONDecoder().decode(Summary.self, from: data)
            #expect(decoded == summary)
        }
        let monthly = builder.summary(horizon: .monthly, asOf: wakeDate("2025-03-31"))
        #expect(monthly.rollingDebt != nil)
        #expect(monthly.patterns?.socialJetLag != nil)
        // 0.5 h deep of at least 6 h asleep is at most 0.083 of every night: low deep sleep
        #expect(monthly.patterns?.lowDeepSleep != nil)
        let object = try #require(
            JSONSerialization.jsonObject(with: encoder.encode(monthly)) as? [String: Any])
        #expect(object["schema_version"] as? Int == 1)
        #expect(object["as_of"] as? String == "2025-03-31")
        #expect(object["horizon"] as? String == "monthly")
        #expect((object["window"] as? [String: Any])?["first"] as? String == "2025-03-01")
        for key in [
            "goal_band", "debt", "buckets", "rolling_debt", "score", "last_night", "weekly",
            "trend",
            "patterns", "regularity", "mid_sleep_jet_lag",
        ] {
            #expect(object[key] != nil, "missing \(key)")
        }
        // absent values are omitted, not null
        let empty = try encoder.encode(
            Summary.build(nights: [], horizon: .weekly, asOf: wakeDate("2025-03-31")))
        let emptyObject = try #require(JSONSerialization.jsonObject(with: empty) as? [String: Any])
        #expect(emptyObject["rolling_debt"] == nil)
        #expect(emptyObject["last_night"] == nil)
        #expect((emptyObject["score"] as? [String: Any])?["components"] == nil)
        #expect((emptyObject["score"] as? [String: Any])?["grade"] as? String == "Very Poor")
    }

    /// Section 5's horizon-independent parts are the same for every horizon.
    @Test func horizonIndependentParts() {
        let all = SummaryBuilder(nights: richNights()).summaries(asOf: wakeDate("2025-03-31"))
        #expect(all.map(\.horizon) == Horizon.allCases)
        #expect(Set(all.map(\.rollingDebt)).count == 1)
        #expect(Set(all.map(\.weekly)).count == 1)
        #expect(Set(all.map(\.lastNight)).count == 1)
    }

    /// Ten years of nights (3,653), all six horizons from one builder.
    @Test func tenYearsOfNightsIsFast() {
        let first = wakeDate("2015-04-01")
        let nights = (0..<3653).map { i in
            MetricTestNight.make(
                wake: first.adding(days: i).description, bedtime: i % 7 == 5 ? "00:40" : "23:10",
                asleep: sleepHours(6.5) + Int64(i % 13) * 300, awake: sleepMinutes(15),
                zone: "Europe/Berlin", utcOffset: 3600,
                deep: sleepHours(1), rem: sleepHours(1.5), core: sleepHours(3.5))
        }
        let clock = ContinuousClock()
        var summaries: [Summary] = []
        let elapsed = clock.measure {
            summaries = SummaryBuilder(nights: nights).summaries(asOf: wakeDate("2025-03-31"))
        }
        #expect(summaries.count == 6)
        // 2015-04-01 + 3652 days = 2025-03-31; the 10-year window starts the day after 2015-03-31
        #expect(summaries[5].window.first == wakeDate("2015-04-01"))
        #expect(summaries[5].debt.trackedNights == 3653)
        // Generous bound for an unoptimised debug build on a shared machine; release figures
        // are in docs/sleep-rules.md.
        #expect(elapsed < .seconds(2))
    }
}
