import Foundation
import SleepCore
import Testing

/// Local clock readings across daylight-saving changes, in a named zone (spec section 2:
/// every local time of a night uses its one zone).
@Suite struct SummaryLocalTimeTests {
    /// The UTC instant of a local wall time in `zone`, from Foundation's calendar.
    private func instant(_ zone: String, _ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int) throws
        -> Int64
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let date = try #require(
            calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min)))
        return Int64(date.timeIntervalSince1970)
    }

    /// A night in Europe/Berlin from 23:00 local on the eve of `wake` for `asleep` seconds.
    private func berlinNight(wake: LocalDate, asleep: Int64) throws -> Night {
        let eve = wake.adding(days: -1)
        let bed = try instant("Europe/Berlin", eve.year, eve.month, eve.day, 23, 0)
        return Night(
            wakeDay: wake, timeZoneIdentifier: "Europe/Berlin", bedtime: bed, onset: bed,
            wake: bed + asleep,
            asleepSeconds: asleep, timeInBedSeconds: asleep, awakeSeconds: 0, wakeUps: 0,
            latencySeconds: nil,
            stages: StageSeconds(unspecified: asleep), efficiency: 1, hasStageData: false,
            source: "Phone",
            fragmentCount: 1, setAsideSources: [],
            asleepIntervals: [TimeSpan(start: bed, end: bed + asleep)],
            stageSegments: [])
    }

    /// The October 2025 change (03:00 CEST -> 02:00 CET on the 26th): 23:00 CEST plus 9 h
    /// of sleep wakes at 07:00 CET.
    @Test func nightAcrossTheOctoberChange() throws {
        let night = try berlinNight(wake: wakeDate("2025-10-26"), asleep: sleepHours(9))
        let last = LastNightSummary(night: night)
        #expect(last.bedtimeLocal == "2025-10-25T23:00:00")
        #expect(last.wakeLocal == "2025-10-26T07:00:00")
    }

    /// 800 nights at 23:00 Berlin time through several spring and autumn changes: every
    /// bedtime reads 23:00 locally, so consistency is 100, no late bedtimes, and last
    /// night's local times are right.
    @Test func bedtimesStayLocalThroughManyChanges() throws {
        let first = wakeDate("2023-01-01")
        let nights = try (0..<800).map {
            try berlinNight(wake: first.adding(days: $0), asleep: sleepHours(8))
        }
        let asOf = first.adding(days: 799)
        let summary = SummaryBuilder(nights: nights.reversed()).summary(
            horizon: .fiveYears, asOf: asOf)
        #expect(summary.score.components?.consistency == 100)
        #expect(summary.patterns?.lateBedtimes == nil)
        #expect(summary.lastNight?.bedtimeLocal == "\(asOf.adding(days: -1))T23:00:00")
        #expect(summary.lastNight?.wakeLocal == "\(asOf)T07:00:00")
        // the same nights read one by one
        for night in nights where night.wakeDay.day == 1 {
            #expect(LastNightSummary(night: night).bedtimeLocal.hasSuffix("T23:00:00"))
        }
    }
}
