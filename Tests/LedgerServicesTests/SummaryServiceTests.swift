import Foundation
import LedgerServices
import LedgerStore
import SleepCore
import SleepFixtures
import Testing

@Suite("Summary service")
struct SummaryServiceTests {
    static let asOf = LocalDate(year: 2024, month: 3, day: 1)
    static let now = Int64(asOf.daysSinceEpoch) * 86_400 + 12 * 3600

    @Test("computed on the fly as of the rollup's day, every horizon equals what the rollup stored")
    func onTheFlyEqualsStored() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        let anna = try users.add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: 7 * 3600 + 1800, minimumSeconds: nil)
        let samples = SleepStreamGenerator(seed: 21).samples(
            from: Self.asOf.adding(days: -400), through: Self.asOf.adding(days: -1))
        let zip = try fixture.writeZip("export.zip", samples: samples)
        _ = try ImportService(session: fixture.session).importInput(.path(zip), for: anna)
        let report = try RollupService(database: fixture.database, settings: RollupSettings(asOf: Self.asOf)).run(
            now: Self.now)
        #expect(report.usersDone == 1)

        let summaries = SummaryService(session: fixture.session)
        for horizon in Horizon.allCases {
            guard case .found(let stored) = try summaries.summary(for: anna, horizon: horizon, asOf: nil),
                case .found(let computed) = try summaries.summary(for: anna, horizon: horizon, asOf: Self.asOf)
            else {
                Issue.record("no \(horizon) summary")
                continue
            }
            #expect(stored.debt.trackedNights > 0)
            #expect(computed == stored, "\(horizon)")
            // The stored text, as the API sends it, is the same summary, found the same way.
            for lookup in [
                try summaries.storedText(for: anna, horizon: horizon),
                try AccountService(session: fixture.session, userID: anna.id).storedSummaryText(horizon: horizon),
            ] {
                guard case .found(let json) = lookup else {
                    Issue.record("no stored \(horizon) text")
                    continue
                }
                #expect(try JSONDecoder().decode(Summary.self, from: Data(json)) == stored, "\(horizon)")
            }
        }
        // Another day is computed from the same stored nights.
        guard
            case .found(let earlier) = try summaries.summary(
                for: anna, horizon: .weekly, asOf: Self.asOf.adding(days: -30))
        else {
            Issue.record("no weekly summary 30 days earlier")
            return
        }
        #expect(earlier.asOf == Self.asOf.adding(days: -30))
        #expect(earlier.debt.trackedNights > 0)
    }

    @Test("why there is no summary: never rolled up, nothing imported, samples but no nights")
    func absences() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        let summaries = SummaryService(session: fixture.session)
        let ben = try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let account = AccountService(session: fixture.session, userID: ben.id)
        // The stored text finds the same absence as the decoded summary, whatever the reason.
        func expectAbsence(_ absence: SummaryService.Absence, _ horizon: Horizon = .weekly) throws {
            #expect(try summaries.summary(for: ben, horizon: horizon, asOf: nil) == .absent(absence))
            #expect(try summaries.storedText(for: ben, horizon: horizon) == .absent(absence))
            #expect(try account.storedSummaryText(horizon: horizon) == .absent(absence))
        }
        try expectAbsence(.neverRolledUp)

        let rollup = RollupService(database: fixture.database, settings: RollupSettings(asOf: Self.asOf))
        try rollup.run(now: Self.now)
        try expectAbsence(.noSamples)
        #expect(try summaries.summary(for: ben, horizon: .weekly, asOf: Self.asOf) == .absent(.noSamples))

        // Twenty minutes asleep: a nap, not a night.
        let nap = try fixture.write(
            "nap.csv",
            """
            sourceName,startDate,endDate,value
            Watch,2024-02-29T13:00:00Z,2024-02-29T13:20:00Z,HKCategoryValueSleepAnalysisAsleepCore

            """)
        _ = try ImportService(session: fixture.session).importInput(.path(nap), for: ben)
        try rollup.run(now: Self.now)
        #expect(try summaries.naps(for: ben).count == 1)
        #expect(try summaries.nights(for: ben).isEmpty)
        try expectAbsence(.samplesWithoutNights)
        try expectAbsence(.samplesWithoutNights, .tenYears)
        #expect(try summaries.summary(for: ben, horizon: .daily, asOf: Self.asOf) == .absent(.samplesWithoutNights))
        // An account that no longer exists.
        let gone = #expect(throws: ServiceError.self) {
            try AccountService(session: fixture.session, userID: ben.id + 1000).storedSummaryText(horizon: .weekly)
        }
        #expect(gone?.kind == .notFound)
    }
}
