import LedgerTestSupport
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerStore

/// Nights are read in PostgreSQL's binary format; they must come back exactly as they were
/// written (stage segments only from `segmentsFrom` on when it is given).
@Suite("Nights read back (binary)")
struct NightSummaryReadTests {
    static func withoutSegments(before day: LocalDate, _ nights: [Night]) -> [Night] {
        nights.map { night in
            var copy = night
            if night.wakeDay < day { copy.stageSegments = [] }
            return copy
        }
    }

    @Test("awkward fields, no latency, a night before 1970 and one in 2100")
    func awkwardNights() throws {
        let (connection, userID) = try NightStoreTests.connectionWithUser()
        defer { connection.close() }
        let store = NightStore(connection: connection)
        var noLatency = NightStoreTests.awkwardNight
        noLatency.wakeDay = LocalDate(year: 2025, month: 3, day: 31)
        noLatency.latencySeconds = nil
        noLatency.setAsideSources = []
        noLatency.asleepIntervals = []
        var early = NightStoreTests.awkwardNight
        early.wakeDay = LocalDate(year: 1969, month: 12, day: 31)
        early.bedtime = -30_001
        early.onset = -29_000
        early.wake = -3_601
        early.asleepIntervals = [TimeSpan(start: -29_000, end: -3_601)]
        var late = NightStoreTests.awkwardNight
        late.wakeDay = LocalDate(year: 2100, month: 1, day: 2)
        late.bedtime = 4_102_531_200
        late.onset = 4_102_532_100
        late.wake = 4_102_560_000
        late.asleepIntervals = [TimeSpan(start: 4_102_532_100, end: 4_102_560_000)]
        late.efficiency = 0.1 + 0.2
        let nights = [early, NightStoreTests.awkwardNight, noLatency, late]
        try store.replace(userID: userID, from: nil, nights: nights, naps: [])
        #expect(try store.nights(userID: userID) == nights)
        for segmentsFrom in [early.wakeDay, noLatency.wakeDay, late.wakeDay.adding(days: 1)] {
            let read = try store.nights(userID: userID, from: early.wakeDay, through: nil, segmentsFrom: segmentsFrom)
            #expect(read == Self.withoutSegments(before: segmentsFrom, nights))
        }
        let bounded = try store.nights(
            userID: userID, from: NightStoreTests.awkwardNight.wakeDay, through: noLatency.wakeDay,
            segmentsFrom: early.wakeDay)
        #expect(bounded == [NightStoreTests.awkwardNight, noLatency])
    }

    @Test("a year of generated nights")
    func generatedNights() throws {
        let (connection, userID) = try NightStoreTests.connectionWithUser()
        defer { connection.close() }
        let samples = SleepStreamGenerator(seed: 5).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 12, day: 31))
        let built = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin")
        let store = NightStore(connection: connection)
        try store.replace(userID: userID, from: nil, nights: built.nights, naps: built.naps)
        let segmentsFrom = LocalDate(year: 2024, month: 12, day: 30)
        let read = try store.nights(
            userID: userID, from: LocalDate(year: 2023, month: 1, day: 1), through: nil, segmentsFrom: segmentsFrom)
        #expect(read.count > 300)
        #expect(read == Self.withoutSegments(before: segmentsFrom, built.nights.sorted { $0.wakeDay < $1.wakeDay }))
        #expect(try store.nights(userID: userID) == built.nights.sorted { $0.wakeDay < $1.wakeDay })
    }
}
