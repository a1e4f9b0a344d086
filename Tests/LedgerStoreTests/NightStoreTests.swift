import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@Suite("Nights and naps repository")
struct NightStoreTests {
    static func connectionWithUser(_ zone: String = "Europe/Berlin") throws -> (Connection, Int64) {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        let user = try UserStore(connection: connection).add(handle: "anna", timeZone: zone)
        return (connection, user.id)
    }

    /// A night with every optional and awkward field set by hand.
    static let awkwardNight = Night(
        wakeDay: LocalDate(year: 2025, month: 3, day: 30), timeZoneIdentifier: "GMT+05:30",
        bedtime: 1_743_285_600, onset: 1_743_286_500, wake: 1_743_313_500, asleepSeconds: 25_200,
        timeInBedSeconds: 27_900, awakeSeconds: 1_800, wakeUps: 2, latencySeconds: 900,
        stages: StageSeconds(deep: 3_600, rem: 5_400, core: 14_400, unspecified: 1_800),
        efficiency: 25_200.0 / 27_900.0,
        hasStageData: true, source: "Anna's \"Watch\"", fragmentCount: 2,
        setAsideSources: ["AutoSleep, v2", "Back\\slash", "NULL", "{braces}"],
        asleepIntervals: [
            TimeSpan(start: 1_743_286_500, end: 1_743_300_000), TimeSpan(start: 1_743_301_800, end: 1_743_313_500),
        ],
        stageSegments: [
            StageSegment(stage: .core, span: TimeSpan(start: 1_743_286_500, end: 1_743_290_000)),
            StageSegment(stage: .deep, span: TimeSpan(start: 1_743_290_000, end: 1_743_293_600)),
            StageSegment(stage: .asleepUnspecified, span: TimeSpan(start: 1_743_301_800, end: 1_743_303_600)),
        ])

    @Test("a night with quotes, commas and NULL-looking sources, a fixed offset zone and no latency reads back equal")
    func awkwardRoundTrip() throws {
        let (connection, userID) = try Self.connectionWithUser()
        let store = NightStore(connection: connection)
        var noLatency = Self.awkwardNight
        noLatency.wakeDay = LocalDate(year: 2025, month: 3, day: 31)
        noLatency.latencySeconds = nil
        noLatency.setAsideSources = []
        noLatency.stageSegments = []
        noLatency.hasStageData = false
        noLatency.bedtime = noLatency.onset
        noLatency.efficiency = 1
        let written = try store.replace(userID: userID, from: nil, nights: [Self.awkwardNight, noLatency], naps: [])
        #expect(written.nights == 2)
        #expect(try store.nights(userID: userID) == [Self.awkwardNight, noLatency])
        #expect(try store.nights(userID: userID, from: LocalDate(year: 2025, month: 3, day: 31)) == [noLatency])
        #expect(
            try store.nights(userID: userID, through: LocalDate(year: 2025, month: 3, day: 30)) == [Self.awkwardNight])
    }

    @Test("ninety days of generated nights and naps read back exactly as the night builder made them")
    func generatedRoundTrip() throws {
        let (connection, userID) = try Self.connectionWithUser()
        let samples = SleepStreamGenerator(seed: 11).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 3, day: 30))
        let built = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin")
        #expect(built.nights.count > 60)
        let store = NightStore(connection: connection)
        try store.replace(userID: userID, from: nil, nights: built.nights, naps: built.naps)
        #expect(try store.nights(userID: userID) == built.nights.sorted { $0.wakeDay < $1.wakeDay })
        #expect(try store.naps(userID: userID) == built.naps)
    }

    @Test("replacing from a wake day keeps earlier nights and naps and drops values before that day")
    func replaceFrom() throws {
        let (connection, userID) = try Self.connectionWithUser()
        let store = NightStore(connection: connection)
        func night(_ day: Int, asleep: Int64) -> Night {
            var night = Self.awkwardNight
            night.wakeDay = LocalDate(year: 2025, month: 4, day: day)
            night.asleepSeconds = asleep
            return night
        }
        func nap(_ day: Int) -> Nap {
            let start = Int64(LocalDate(year: 2025, month: 4, day: day).daysSinceEpoch) * 86_400 + 50_000
            return Nap(
                wakeDay: LocalDate(year: 2025, month: 4, day: day), timeZoneIdentifier: "UTC", source: "Watch",
                start: start, end: start + 1_200, asleepSeconds: 1_200)
        }
        try store.replace(
            userID: userID, from: nil, nights: [night(1, asleep: 1), night(2, asleep: 2), night(3, asleep: 3)],
            naps: [nap(1), nap(3)])
        let written = try store.replace(
            userID: userID, from: LocalDate(year: 2025, month: 4, day: 2),
            nights: [night(1, asleep: 10), night(2, asleep: 20)], naps: [nap(1)])
        #expect(written.nights == 1 && written.naps == 0)
        #expect(try store.nights(userID: userID).map(\.asleepSeconds) == [1, 20])
        #expect(try store.naps(userID: userID) == [nap(1)])
    }

    @Test("removing the user removes its nights and naps")
    func cascade() throws {
        let (connection, userID) = try Self.connectionWithUser()
        try NightStore(connection: connection).replace(
            userID: userID, from: nil, nights: [Self.awkwardNight], naps: [])
        try UserStore(connection: connection).remove(handle: "anna")
        #expect(try connection.execute("SELECT count(*) FROM nights").single().int64(0) == 0)
    }
}
