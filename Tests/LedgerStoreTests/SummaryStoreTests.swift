import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@Suite("Summaries repository")
struct SummaryStoreTests {
    @Test("six summaries written and read back decode equal; headlines carry debt, score, grade and last night")
    func roundTrip() throws {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        let users = UserStore(connection: connection)
        let anna = try users.add(handle: "anna", timeZone: "Europe/Berlin")
        let ben = try users.add(handle: "ben", timeZone: "UTC")
        let samples = SleepStreamGenerator(seed: 5).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 2, day: 29))
        let nights = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
        let asOf = LocalDate(year: 2024, month: 3, day: 1)
        let summaries = SummaryBuilder(nights: nights).summaries(asOf: asOf)
        let store = SummaryStore(connection: connection)
        #expect(try store.replace(userID: anna.id, summaries: summaries, computedAt: 1_709_280_000) == 6)
        // A user with no nights: zero debt, score 0, no last night.
        let empty = SummaryBuilder(nights: []).summaries(asOf: asOf)
        try store.replace(userID: ben.id, summaries: empty, computedAt: 1_709_280_000)

        for summary in summaries {
            #expect(try store.summary(userID: anna.id, horizon: summary.horizon) == summary)
        }
        let headlines = try store.headlines(horizon: .weekly)
        #expect(headlines.map(\.handle) == ["anna", "ben"])
        let weekly = try #require(summaries.first { $0.horizon == .weekly })
        #expect(headlines[0].debtSeconds == weekly.debt.debtSeconds)
        #expect(headlines[0].score == weekly.score.overall)
        #expect(headlines[0].grade == weekly.score.grade)
        #expect(headlines[0].asOf == asOf)
        #expect(headlines[0].computedAt == 1_709_280_000)
        #expect(headlines[0].lastNightWakeDay == weekly.lastNight?.wakeDay)
        #expect(headlines[1].debtSeconds == 0)
        #expect(headlines[1].score == 0)
        #expect(headlines[1].trackedNights == 0)
        #expect(headlines[1].lastNightWakeDay == nil)
        #expect(try store.headlines().count == 12)
        #expect(try store.headlines().prefix(6).map(\.horizon) == Horizon.allCases)

        // Replacing writes the new set only.
        try store.replace(userID: anna.id, summaries: Array(summaries.prefix(2)), computedAt: 1_709_366_400)
        #expect(try store.summary(userID: anna.id, horizon: .yearly) == nil)
        #expect(try store.headlines(horizon: .daily).first?.computedAt == 1_709_366_400)
    }

    @Test(
        "the stored text is the summary's JSON; its flag says whether it counts nights, a rolling debt or a last night")
    func storedText() throws {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        let users = UserStore(connection: connection)
        let store = SummaryStore(connection: connection)
        let nights = NightBuilder().build(
            from: SleepStreamGenerator(seed: 9).samples(
                from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 2, day: 29)),
            userTimeZoneIdentifier: "Europe/Berlin"
        ).nights
        // As of the end, long after it (nights out of the short windows), and with no nights.
        var cases: [(User, [Summary])] = []
        for (handle, summaries) in [
            ("anna", SummaryBuilder(nights: nights).summaries(asOf: LocalDate(year: 2024, month: 3, day: 1))),
            ("ben", SummaryBuilder(nights: nights).summaries(asOf: LocalDate(year: 2024, month: 6, day: 1))),
            ("cleo", SummaryBuilder(nights: []).summaries(asOf: LocalDate(year: 2024, month: 3, day: 1))),
        ] {
            let user = try users.add(handle: handle, timeZone: "Europe/Berlin")
            try store.replace(userID: user.id, summaries: summaries, computedAt: 1_709_280_000)
            cases.append((user, summaries))
        }
        var flags: Set<Bool> = []
        for (user, summaries) in cases {
            for summary in summaries {
                let stored = try #require(try store.storedText(userID: user.id, horizon: summary.horizon))
                #expect(try JSONDecoder().decode(Summary.self, from: Data(stored.json)) == summary)
                let expected = summary.debt.trackedNights > 0 || summary.rollingDebt != nil || summary.lastNight != nil
                #expect(stored.hasNightData == expected, "\(user.handle) \(summary.horizon)")
                flags.insert(expected)
            }
        }
        #expect(flags == [true, false])
        #expect(try store.storedText(userID: cases[0].0.id + 100, horizon: .weekly) == nil)
    }

    @Test("the stored JSON is the documented snake_case shape")
    func jsonShape() throws {
        let summary = SummaryBuilder(nights: []).summary(
            horizon: .weekly, asOf: LocalDate(year: 2024, month: 3, day: 1))
        let text = try SummaryStore.jsonText(of: summary)
        #expect(text.contains("\"as_of\":\"2024-03-01\""))
        #expect(text.contains("\"schema_version\":1"))
        #expect(text.contains("\"horizon\":\"weekly\""))
    }
}
