import SleepCore
import Testing

/// MSFsc's worked examples (docs/sleep-rules.md, "Chronotype") and boundaries.
@Suite("Chronotype (MSFsc)")
struct ChronotypeTests {
    /// Ten work nights (Monday-Friday of two weeks from 2026-03-02) and the four weekend
    /// nights between, each from its own bedtime and length.
    static func fortnight(
        work: (bedtime: String, hours: Double), free: [(bedtime: String, hours: Double)], zone: String = "UTC"
    ) -> [Night] {
        var nights: [Night] = []
        var freeIndex = 0
        for day in PersonalTestNights.days(from: "2026-03-02", count: 14) {
            if WorkDays.mondayToFriday.isWorkDay(day) {
                nights.append(PersonalTestNights.night(day.description, work.bedtime, hours: work.hours, zone: zone))
            } else {
                let item = free[freeIndex % free.count]
                freeIndex += 1
                nights.append(PersonalTestNights.night(day.description, item.bedtime, hours: item.hours, zone: zone))
            }
        }
        return nights
    }

    static let asOf = wakeDate("2026-03-15")

    @Test("C1: work 23:30-06:30, free 00:30-09:30: MSFsc 04:17:09")
    func correction() {
        let nights = Self.fortnight(work: ("23:30", 7), free: [("00:30", 9)])
        let chronotype = Chronotype.estimate(nights: nights, asOf: Self.asOf)
        #expect(chronotype.msfSeconds == Int64(5 * 3600))
        #expect(chronotype.msfscSeconds == 15_429)
        #expect(chronotype.freeNights == 4 && chronotype.workNights == 10)
        #expect(chronotype.reason == nil && chronotype.undefinedReason == nil)
    }

    @Test("C2: free nights 23:50-08:10 and 00:10-07:50 in turn: MSFsc 03:38:34")
    func alternating() {
        let nights = Self.fortnight(work: ("23:30", 7), free: [("23:50", 8 + 20.0 / 60), ("00:10", 7 + 40.0 / 60)])
        let chronotype = Chronotype.estimate(nights: nights, asOf: Self.asOf)
        #expect(chronotype.msfSeconds == Int64(4 * 3600))
        #expect(chronotype.msfscSeconds == 13_114)
    }

    @Test("C3: free days waking 06:40 against work days waking 06:30: alarm-driven, undefined")
    func alarm() {
        let nights = Self.fortnight(work: ("23:30", 7), free: [("23:40", 7)])
        let chronotype = Chronotype.estimate(nights: nights, asOf: Self.asOf)
        #expect(chronotype.msfscSeconds == nil)
        #expect(chronotype.reason == .alarmDrivenFreeDays)
        #expect(chronotype.undefinedReason == "free days wake within 15 minutes of work days, as if by an alarm")
    }

    @Test("free days waking exactly 15 min later are not alarm-driven")
    func alarmBoundary() {
        let nights = Self.fortnight(work: ("23:30", 7), free: [("23:45", 7)])
        #expect(Chronotype.estimate(nights: nights, asOf: Self.asOf).msfscSeconds == Int64(3 * 3600 + 15 * 60))
    }

    @Test("C4: 3 free nights: too few nights, with the counts")
    func tooFewFree() {
        let nights = Array(Self.fortnight(work: ("23:30", 7), free: [("00:30", 9)]).dropLast())
        let chronotype = Chronotype.estimate(nights: nights, asOf: wakeDate("2026-03-14"))
        #expect(chronotype.reason == .tooFewNights)
        #expect(chronotype.freeNights == 3 && chronotype.workNights == 10)
        #expect(
            chronotype.undefinedReason
                == "3 free and 10 work nights in the last 42 days: at least 4 free and 10 work nights are needed")
    }

    @Test("9 work nights: too few; nights older than 42 days do not count")
    func tooFewWork() {
        var nights = Self.fortnight(work: ("23:30", 7), free: [("00:30", 9)])
        nights.remove(at: 0)
        #expect(Chronotype.estimate(nights: nights, asOf: Self.asOf).reason == .tooFewNights)
        let full = Self.fortnight(work: ("23:30", 7), free: [("00:30", 9)])
        // 2026-03-02 is the 42nd day back from 2026-04-12, not from 2026-04-13.
        #expect(Chronotype.estimate(nights: full, asOf: wakeDate("2026-04-12")).msfscSeconds == 15_429)
        #expect(Chronotype.estimate(nights: full, asOf: wakeDate("2026-04-13")).reason == .tooFewNights)
    }

    @Test("C5: mid-sleeps 23:50 and 00:10 average to 00:00 across midnight")
    func midnight() {
        let nights = Self.fortnight(work: ("22:00", 8), free: [("19:50", 8), ("20:10", 8)])
        let chronotype = Chronotype.estimate(nights: nights, asOf: Self.asOf)
        #expect(chronotype.msfscSeconds == 0)
    }

    @Test("travel: the first night in another zone and the first back are left out")
    func travel() {
        var nights = Self.fortnight(work: ("23:30", 7), free: [("00:30", 9)])
        // Tuesday and Wednesday of the second week in New York (UTC-4 in March 2026 after the
        // 8 March change), at the same local times.
        for index in [8, 9] {
            let day = nights[index].wakeDay.description
            nights[index] = PersonalTestNights.night(
                day, "23:30", hours: 7, zone: "America/New_York", offset: -4 * 3600)
        }
        let chronotype = Chronotype.estimate(nights: nights, asOf: Self.asOf)
        #expect(chronotype.clockShiftNights == 2)
        #expect(chronotype.workNights == 8)
        #expect(chronotype.reason == .tooFewNights)
    }

    @Test("a daylight-saving night is left out (Europe/Berlin, 2026-03-29)")
    func daylightSaving() {
        // Wake days 2026-03-23 (Monday) .. 2026-04-05: the night into Sunday 29 March spans the change.
        var nights: [Night] = []
        for day in PersonalTestNights.days(from: "2026-03-23", count: 14) {
            let summer = day >= wakeDate("2026-03-29")
            let offset: Int64 = summer ? 7200 : 3600
            let free = !WorkDays.mondayToFriday.isWorkDay(day)
            nights.append(
                PersonalTestNights.night(
                    day.description, free ? "00:30" : "23:30", hours: free ? 9 : 7, zone: "Europe/Berlin",
                    offset: day == wakeDate("2026-03-29") ? 3600 : offset))
        }
        let chronotype = Chronotype.estimate(nights: nights, asOf: wakeDate("2026-04-05"))
        #expect(chronotype.clockShiftNights == 1)
        #expect(chronotype.freeNights == 3)
        #expect(chronotype.reason == .tooFewNights)
    }

    @Test("property: moving every night 1 h later moves MSFsc 1 h later", arguments: Array(0...9))
    func shiftInvariance(base: Int) throws {
        func clock(_ hour: Int) -> String { (hour < 10 ? "0" : "") + String(hour) + ":00" }
        // Bedtimes 00:00-11:00 keep every night on its wake day.
        let early = Self.fortnight(work: (clock(base), 7), free: [(clock(base + 1), 9)])
        let later = Self.fortnight(work: (clock(base + 1), 7), free: [(clock(base + 2), 9)])
        let first = try #require(Chronotype.estimate(nights: early, asOf: Self.asOf).msfscSeconds)
        let second = try #require(Chronotype.estimate(nights: later, asOf: Self.asOf).msfscSeconds)
        #expect((second - first + 86_400) % 86_400 == 3600)
    }
}
