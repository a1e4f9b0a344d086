import SleepCore
import Testing

/// Sleep Regularity Index and mid-sleep social jet lag (spec section 7).
@Suite struct RegularityTests {
    /// 23:00-07:00 every night: state at t and t + 24 h always agrees: SRI 100.
    @Test func perfectlyRegularScheduleIs100() throws {
        let nights = MetricTestNight.series(
            endingOn: "2025-03-10", asleep: Array(repeating: sleepHours(8), count: 10))
        let sri = try #require(SleepRegularity(nights: nights))
        #expect(abs(sri.index - 100) < 1e-9)
        // coverage: noon 03-00 .. noon 03-10 = 10 days; pairs: 9 days
        #expect(sri.pairedSeconds == 9 * 86_400)
    }

    /// Same, in a fixed zone two hours east: still 100.
    @Test func regularInAnotherZoneIs100() throws {
        let nights = (1...7).map {
            MetricTestNight.make(
                wake: "2025-03-0\($0)", bedtime: "22:30", asleep: sleepHours(7.5),
                zone: "GMT+02:00", utcOffset: 7200)
        }
        #expect(abs(try #require(SleepRegularity(nights: nights)).index - 100) < 1e-9)
    }

    /// Night 1 23:00-07:00, night 2 00:00-08:00 (one hour later). Coverage is 48 h, so t runs
    /// over the 24 h from noon before night 1. Asleep at t: 23:00-07:00 (8 h); asleep at
    /// t + 24 h: 00:00-08:00 (8 h); both: 00:00-07:00 (7 h). Different: 1 h + 1 h = 2 h.
    /// SRI = -100 + 200 x 22 / 24 = 83.333...
    @Test func oneHourShiftByHand() throws {
        let nights = [
            MetricTestNight.make(wake: "2025-03-04", bedtime: "23:00", asleep: sleepHours(8)),
            MetricTestNight.make(wake: "2025-03-05", bedtime: "00:00", asleep: sleepHours(8)),
        ]
        let sri = try #require(SleepRegularity(nights: nights))
        #expect(sri.pairedSeconds == 86_400)
        #expect(abs(sri.index - (-100 + 200.0 * 22 / 24)) < 1e-9)
    }

    /// Awake inside a night is awake: night 1 has 30 awake minutes, night 2 none, same
    /// 23:00-07:00 span. Different for 30 min: -100 + 200 x 23.5 / 24 = 95.8333...
    @Test func awakeStretchInsideANightCounts() throws {
        let nights = [
            MetricTestNight.make(
                wake: "2025-03-04", bedtime: "23:00", asleep: sleepHours(7.5),
                awake: sleepMinutes(30), awakeAfter: sleepHours(4)),
            MetricTestNight.make(wake: "2025-03-05", bedtime: "23:00", asleep: sleepHours(8)),
        ]
        let sri = try #require(SleepRegularity(nights: nights))
        #expect(abs(sri.index - (-100 + 200.0 * 23.5 / 24)) < 1e-9)
    }

    /// Three nights 23:00-07:00, 01:00-09:00, 23:00-07:00. Two 24 h pairs windows:
    /// first: asleep 23-07 vs 01-09: both 01-07 (6 h), different 2 h + 2 h = 4 h;
    /// second: 01-09 vs 23-07: same 4 h different. Same 40 h of 48: -100 + 200 x 40/48 = 66.666...
    @Test func twoHourJumpAndBack() throws {
        let nights = [
            MetricTestNight.make(wake: "2025-03-04", bedtime: "23:00", asleep: sleepHours(8)),
            MetricTestNight.make(wake: "2025-03-05", bedtime: "01:00", asleep: sleepHours(8)),
            MetricTestNight.make(wake: "2025-03-06", bedtime: "23:00", asleep: sleepHours(8)),
        ]
        let sri = try #require(SleepRegularity(nights: nights))
        #expect(sri.pairedSeconds == 2 * 86_400)
        #expect(abs(sri.index - (-100 + 200.0 * 40 / 48)) < 1e-9)
    }

    /// Nights two days apart share no covered pair; one night has none either.
    @Test func noPairsNoIndex() {
        #expect(
            SleepRegularity(nights: [
                MetricTestNight.make(wake: "2025-03-04", asleep: sleepHours(8))
            ]) == nil)
        #expect(
            SleepRegularity(nights: [
                MetricTestNight.make(wake: "2025-03-04", asleep: sleepHours(8)),
                MetricTestNight.make(wake: "2025-03-06", asleep: sleepHours(8)),
            ]) == nil)
        #expect(SleepRegularity(nights: []) == nil)
    }

    /// Work days (Mon-Fri wake) 23:00-07:00 (mid-sleep 03:00); free days 01:00-11:00
    /// (mid-sleep 06:00): 3 h.
    @Test func midSleepJetLagSimple() throws {
        let nights = (3...9).map { d in
            d >= 8
                ? MetricTestNight.make(
                    wake: "2025-03-0\(d)", bedtime: "01:00", asleep: sleepHours(10))
                : MetricTestNight.make(
                    wake: "2025-03-0\(d)", bedtime: "23:00", asleep: sleepHours(8))
        }
        let lag = try #require(MidSleepJetLag(nights: nights))
        #expect(abs(lag.differenceHours - 3) < 1e-9)
        #expect(lag.freeDayMidSleepSeconds == 6 * 3600)
        #expect(lag.workDayMidSleepSeconds == 3 * 3600)
        #expect(lag.freeDayNights == 2)
        #expect(lag.workDayNights == 5)
    }

    /// Free-day mid-sleeps 23:30 (Saturday wake) and 00:30 (Sunday wake) average as angles
    /// to 00:00, not to the arithmetic 12:00; work day (Monday wake) mid-sleep 22:00. The
    /// shorter distance between 00:00 and 22:00 is 2 h, not 22 h.
    @Test func midSleepAcrossMidnightUsesCircularMean() throws {
        let nights = [
            // 19:30 -> 03:30 (8 h), mid 23:30 on Friday; wakes Saturday 2025-03-08
            MetricTestNight.make(wake: "2025-03-08", bedtime: "19:30", asleep: sleepHours(8)),
            // 20:30 -> 04:30, mid 00:30; wakes Sunday
            MetricTestNight.make(wake: "2025-03-09", bedtime: "20:30", asleep: sleepHours(8)),
            // 18:00 -> 02:00, mid 22:00; wakes Monday
            MetricTestNight.make(wake: "2025-03-10", bedtime: "18:00", asleep: sleepHours(8)),
        ]
        let lag = try #require(MidSleepJetLag(nights: nights))
        #expect(lag.freeDayMidSleepSeconds == 0)
        #expect(lag.workDayMidSleepSeconds == 22 * 3600)
        #expect(abs(lag.differenceHours - 2) < 1e-9)
    }

    @Test func midSleepNeedsBothGroups() {
        let workdays = (3...7).map {
            MetricTestNight.make(wake: "2025-03-0\($0)", asleep: sleepHours(8))
        }
        #expect(MidSleepJetLag(nights: workdays) == nil)
    }
}
