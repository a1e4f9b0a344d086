import SleepCore
import Testing

/// The worked checks of spec section 8 that concern nights (sections 0-3); every expected
/// number is worked out by hand from the spec.
@Suite("Worked checks: nights")
struct NightWorkedCheckTests {
    @Test("23:00-02:30 and 05:00-08:48 core from one source: one night, 7.3 h asleep, 9.8 h in bed")
    func fragmentedNightSomnusExample() throws {
        let result = build([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 02:30", .core),
            sample("Watch", "2026-03-02 05:00", "2026-03-02 08:48", .core),
        ])
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(night.asleepSeconds == 26_280)  // 3.5 h + 3.8 h = 7.3 h
        #expect(night.timeInBedSeconds == 35_280)  // 23:00 to 08:48 = 9.8 h
        #expect(night.fragmentCount == 2)
        #expect(night.awakeSeconds == 9_000)  // the 2.5 h gap
        #expect(night.wakeUps == 1)
        #expect(night.wakeDay == LocalDate(year: 2026, month: 3, day: 2))
        #expect(night.latencySeconds == nil)
        #expect(night.bedtime == night.onset)
        #expect(abs(night.efficiency - 26_280.0 / 35_280.0) < 1e-12)
    }

    @Test("Only an inBed sample 23:00-06:00: no night")
    func inBedOnlyIsNoNight() {
        let result = build([sample("iPhone", "2026-03-01 23:00", "2026-03-02 06:00", .inBed)])
        #expect(result.nights.isEmpty)
        #expect(result.naps.isEmpty)
    }

    @Test("Watch staged 7 h and iPhone unspecified 7.5 h on one night: the iPhone's 7.5 h, never 14.5 h")
    func watchAndPhoneSameNight() throws {
        let result = build([
            sample("Apple Watch", "2026-03-01 23:00", "2026-03-02 00:30", .core),
            sample("Apple Watch", "2026-03-02 00:30", "2026-03-02 01:30", .deep),
            sample("Apple Watch", "2026-03-02 01:30", "2026-03-02 04:00", .core),
            sample("Apple Watch", "2026-03-02 04:00", "2026-03-02 06:00", .rem),
            sample("iPhone", "2026-03-01 22:45", "2026-03-02 06:15", .asleepUnspecified),
        ])
        #expect(result.nights.count == 1)
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(night.asleepSeconds == 27_000)
        #expect(night.source == "iPhone")
        #expect(night.setAsideSources == ["Apple Watch"])
        #expect(night.hasStageData == false)
        #expect(night.stages == StageSeconds(unspecified: 27_000))
    }

    @Test("A 40-minute nap at 14:00 plus a 7 h night: one night of 7 h, one nap")
    func napPlusNight() throws {
        let result = build([
            sample("Watch", "2026-03-01 14:00", "2026-03-01 14:40", .core),
            sample("Watch", "2026-03-01 23:00", "2026-03-02 06:00", .core),
        ])
        #expect(result.nights.count == 1)
        #expect(result.nights.first?.asleepSeconds == 7 * hour)
        let nap = try #require(result.naps.first)
        #expect(result.naps.count == 1)
        #expect(nap.asleepSeconds == 40 * minute)
        #expect(nap.start == instant("2026-03-01 14:00"))
        #expect(nap.wakeDay == LocalDate(year: 2026, month: 3, day: 1))
        #expect(nap.source == "Watch")
    }

    @Test("Sleep from 09:00 to 16:00 (shift work): a night on that wake day")
    func shiftWorkNight() throws {
        let result = build([sample("Watch", "2026-03-02 09:00", "2026-03-02 16:00", .core)])
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(result.naps.isEmpty)
        #expect(night.wakeDay == LocalDate(year: 2026, month: 3, day: 2))
        #expect(night.asleepSeconds == 7 * hour)
    }

    @Test("Awake 1 min 30 s inside a night: awake minutes grow, wake-ups do not")
    func shortAwakeIsNoWakeUp() throws {
        let unbroken = try #require(
            build([sample("Watch", "2026-03-01 23:00", "2026-03-02 06:00", .core)]).nights.first)
        let broken = try #require(
            build([
                sample("Watch", "2026-03-01 23:00", "2026-03-02 02:00", .core),
                sample("Watch", "2026-03-02 02:00:00", "2026-03-02 02:01:30", .awake),
                sample("Watch", "2026-03-02 02:01:30", "2026-03-02 06:00", .core),
            ]).nights.first)
        #expect(unbroken.awakeSeconds == 0)
        #expect(broken.awakeSeconds == 90)
        #expect(unbroken.wakeUps == 0)
        #expect(broken.wakeUps == 0)
        #expect(broken.asleepSeconds == 7 * hour - 90)
    }

    @Test("InBed 21:00 with onset 23:30: latency 150 min; inBed 19:00: latency unknown")
    func latencyWindow() throws {
        let sleep = sample("Watch", "2026-03-01 23:30", "2026-03-02 06:30", .core)
        let early = try #require(
            build([sample("iPhone", "2026-03-01 21:00", "2026-03-02 06:30", .inBed), sleep]).nights.first)
        #expect(early.latencySeconds == 150 * minute)
        #expect(early.bedtime == instant("2026-03-01 21:00"))
        #expect(early.timeInBedSeconds == 9 * hour + 30 * minute)

        let tooEarly = try #require(
            build([sample("iPhone", "2026-03-01 19:00", "2026-03-02 06:30", .inBed), sleep]).nights.first)
        #expect(tooEarly.latencySeconds == nil)
        #expect(tooEarly.bedtime == instant("2026-03-01 23:30"))
        #expect(tooEarly.timeInBedSeconds == 7 * hour)
    }

    @Test("A Europe/Berlin night waking the morning after the October clock change")
    func berlinOctoberChange() throws {
        // 2026-10-25 03:00 CEST becomes 02:00 CET. 23:00 CEST on the 24th is 21:00Z;
        // 07:00 CET on the 25th is 06:00Z: nine hours of sleep, not eight.
        let result = build(
            [
                SleepSample(
                    source: "Garmin", start: instant("2026-10-24 21:00"), end: instant("2026-10-25 06:00"),
                    stage: .asleepUnspecified)
            ], userZone: "Europe/Berlin")
        let night = try #require(result.nights.first)
        #expect(night.asleepSeconds == 9 * hour)
        #expect(night.wakeDay == LocalDate(year: 2026, month: 10, day: 25))
        #expect(night.timeZoneIdentifier == "Europe/Berlin")
    }

    @Test("21:00-23:30 and 01:01-07:00 core: one night of 8.48 h with two fragments")
    func eveningFragmentAndNight() throws {
        let result = build([
            sample("Watch", "2026-03-01 21:00", "2026-03-01 23:30", .core),
            sample("Watch", "2026-03-02 01:01", "2026-03-02 07:00", .core),
        ])
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(night.asleepSeconds == 509 * minute)  // 2 h 30 min + 5 h 59 min
        #expect((Double(night.asleepSeconds) / 3600 * 100).rounded() / 100 == 8.48)
        #expect(night.fragmentCount == 2)
        #expect(night.wakeDay == LocalDate(year: 2026, month: 3, day: 2))
        #expect(night.onset == instant("2026-03-01 21:00"))
    }

    @Test("01:00-05:00 and 09:30-13:30 from one source: the first is the night, the second a nap")
    func twoEqualSleepsSameWakeDay() throws {
        let result = build([
            sample("Watch", "2026-03-02 09:30", "2026-03-02 13:30", .core),
            sample("Watch", "2026-03-02 01:00", "2026-03-02 05:00", .core),
        ])
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(night.onset == instant("2026-03-02 01:00"))
        #expect(night.asleepSeconds == 4 * hour)
        let nap = try #require(result.naps.first)
        #expect(result.naps.count == 1)
        #expect(nap.start == instant("2026-03-02 09:30"))
        #expect(nap.asleepSeconds == 4 * hour)
    }
}
