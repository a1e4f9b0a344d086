import SleepCore
import Testing

/// Patterns of spec section 7, each at its threshold. Weekdays below: 2025-03-03 is a
/// Monday, so 03-08 and 03-09 are Saturday and Sunday wake days.
@Suite struct PatternTests {
    /// Five workday nights (Mon-Fri) at `workday` hours and the weekend at `weekend` hours.
    private func week(workday: Double, weekend: Double) -> [Night] {
        (3...9).map { d in
            let date = "2025-03-0\(d)"
            return MetricTestNight.make(wake: date, asleep: sleepHours(d >= 8 ? weekend : workday))
        }
    }

    @Test func nothingUnderFiveTrackedNights() {
        let nights = (3...6).map {
            MetricTestNight.make(wake: "2025-03-0\($0)", bedtime: "02:00", asleep: sleepHours(4))
        }
        #expect(SleepPatterns(nights: nights) == nil)
    }

    /// Weekend 7.6 h vs workdays 6 h: 1.6 h > 1.5 h.
    @Test func socialJetLagTriggered() throws {
        let patterns = try #require(SleepPatterns(nights: week(workday: 6, weekend: 7.6)))
        let lag = try #require(patterns.socialJetLag)
        #expect(abs(lag.differenceHours - 1.6) < 1e-9)
        #expect(lag.weekendNights == 2)
        #expect(lag.workdayNights == 5)
        #expect(abs(lag.weekendAverageHours - 7.6) < 1e-9)
    }

    /// 7.7 h - 6.2 h is 1.5 h (1.5000000000000009 in floating point): not more than 1.5.
    @Test func socialJetLagAtThresholdIsNotTriggered() throws {
        let patterns = try #require(SleepPatterns(nights: week(workday: 6.2, weekend: 7.7)))
        #expect(patterns.socialJetLag == nil)
        #expect(patterns.isEmpty)
    }

    /// Weekend sleeping less is not social jet lag as defined (signed difference).
    @Test func shorterWeekendIsNotSocialJetLag() throws {
        #expect(
            try #require(SleepPatterns(nights: week(workday: 8, weekend: 5))).socialJetLag == nil)
    }

    /// n = 6, floor(6 / 3) = 2: three late bedtimes trigger, two do not. 00:00 and 04:59 are
    /// late, 05:00 and 23:59 are not.
    @Test(arguments: [
        (["00:00", "04:59", "01:30", "23:00", "23:59", "05:00"], 3, true),
        (["00:00", "04:59", "22:30", "23:00", "23:59", "05:00"], 2, false),
    ])
    func lateBedtimes(bedtimes: [String], late: Int, triggered: Bool) throws {
        let nights = bedtimes.enumerated().map { i, bedtime in
            MetricTestNight.make(wake: "2025-03-1\(i)", bedtime: bedtime, asleep: sleepHours(7))
        }
        let patterns = try #require(SleepPatterns(nights: nights))
        if triggered {
            #expect(
                patterns.lateBedtimes
                    == SleepPatterns.LateBedtimes(lateNights: late, trackedNights: 6, threshold: 2))
        } else {
            #expect(patterns.lateBedtimes == nil)
        }
    }

    /// Bedtimes are local: 00:30 in GMT+03:00 is 21:30 UTC, still late.
    @Test func lateBedtimeIsLocal() throws {
        let nights = (0..<5).map { i in
            MetricTestNight.make(
                wake: "2025-03-1\(i)", bedtime: "00:30", asleep: sleepHours(7), zone: "GMT+03:00",
                utcOffset: 10_800)
        }
        #expect(try #require(SleepPatterns(nights: nights)).lateBedtimes?.lateNights == 5)
    }

    /// Deep fraction per staged night: 0.09 is low, 0.10 is not (below 10% only).
    /// REM 0.14 is low, 0.15 is not. Unstaged nights are ignored.
    @Test(arguments: [
        (0.09, 0.20, true, false),
        (0.10, 0.20, false, false),
        (0.20, 0.14, false, true),
        (0.20, 0.15, false, false),
        (0.05, 0.05, true, true),
    ])
    func lowStages(deep: Double, rem: Double, lowDeep: Bool, lowREM: Bool) throws {
        var nights = (0..<5).map { i in
            MetricTestNight.make(
                wake: "2025-03-1\(i)", asleep: sleepHours(8), deep: sleepHours(8 * deep),
                rem: sleepHours(8 * rem),
                core: sleepHours(8 * (0.9 - deep - rem)))
        }
        // an unstaged night with no deep or REM at all must not drag the means down
        nights.append(MetricTestNight.make(wake: "2025-03-20", asleep: sleepHours(8)))
        let patterns = try #require(SleepPatterns(nights: nights))
        #expect((patterns.lowDeepSleep != nil) == lowDeep)
        #expect((patterns.lowREM != nil) == lowREM)
        if let finding = patterns.lowDeepSleep {
            #expect(abs(finding.meanFraction - deep) < 1e-9)
            #expect(finding.stagedNights == 5)
            #expect(finding.threshold == 0.10)
        }
    }

    @Test func noStagedNightsMeansNoStagePatterns() throws {
        let patterns = try #require(SleepPatterns(nights: week(workday: 7, weekend: 7)))
        #expect(patterns.lowDeepSleep == nil)
        #expect(patterns.lowREM == nil)
    }
}
