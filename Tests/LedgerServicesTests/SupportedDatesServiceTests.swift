import Foundation
import LedgerServices
import LedgerStore
import SleepCore
import SleepFixtures
import Testing

/// Every date a person gives the use cases (an as-of day, the first and last wake day of
/// a listing) must lie in 1900-01-01 through 2199-12-31; outside it the service refuses
/// with `invalidInput` naming the range, so every front end (the CLI, the coming HTTP
/// server) does too. The edges themselves work.
@Suite("Supported dates in the services")
struct SupportedDatesServiceTests {
    static let inside = [LocalDate(year: 1900, month: 1, day: 1), LocalDate(year: 2199, month: 12, day: 31)]
    static let outside = [
        LocalDate(year: 1899, month: 12, day: 31), LocalDate(year: 2200, month: 1, day: 1),
        LocalDate(year: 1, month: 1, day: 1), LocalDate(year: 9999, month: 12, day: 31),
        LocalDate(year: 0, month: 1, day: 1), LocalDate(year: -1, month: 6, day: 1),
    ]
    static let now = Int64(LocalDate(year: 2024, month: 3, day: 1).daysSinceEpoch) * 86_400

    /// A user with 30 imported nights in February 2024, rolled up.
    static func fixture() throws -> (ServiceFixture, User) {
        let fixture = try ServiceFixture()
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        let samples = SleepStreamGenerator(seed: 5).samples(
            from: LocalDate(year: 2024, month: 1, day: 31), through: LocalDate(year: 2024, month: 2, day: 29))
        _ = try ImportService(session: fixture.session).importInput(
            .path(try fixture.writeZip("export.zip", samples: samples)), for: anna)
        try RollupService(database: fixture.database, settings: RollupSettings()).run(now: now)
        return (fixture, anna)
    }

    static func expectRefused(_ date: LocalDate, _ what: String, _ body: () throws -> Void) {
        let error = #expect(throws: ServiceError.self) { try body() }
        #expect(error?.kind == .invalidInput)
        #expect(error?.message == "\(what) \(date) is outside the supported dates 1900-01-01 through 2199-12-31")
    }

    @Test("the rollup refuses an as-of day outside the range before touching any user", arguments: outside)
    func rollupRefuses(asOf: LocalDate) throws {
        let (fixture, _) = try Self.fixture()
        defer { fixture.close() }
        let rollup = RollupService(database: fixture.database, settings: RollupSettings(asOf: asOf))
        Self.expectRefused(asOf, "the as-of day") { try rollup.run(now: Self.now) }
    }

    @Test("the rollup runs as of the first and the last supported day", arguments: inside)
    func rollupAtEdges(asOf: LocalDate) throws {
        let (fixture, _) = try Self.fixture()
        defer { fixture.close() }
        let report = try RollupService(database: fixture.database, settings: RollupSettings(asOf: asOf)).run(
            now: Self.now)
        #expect(report.usersDone == 1)
        #expect(report.failures.isEmpty)
    }

    @Test("summaries and listings refuse days outside the range", arguments: outside)
    func summariesRefuse(date: LocalDate) throws {
        let (fixture, anna) = try Self.fixture()
        defer { fixture.close() }
        let summaries = SummaryService(session: fixture.session)
        Self.expectRefused(date, "the as-of day") {
            _ = try summaries.summary(for: anna, horizon: .tenYears, asOf: date)
        }
        Self.expectRefused(date, "the first wake day") { _ = try summaries.nights(for: anna, from: date) }
        Self.expectRefused(date, "the last wake day") { _ = try summaries.nights(for: anna, through: date) }
        Self.expectRefused(date, "the first wake day") { _ = try summaries.naps(for: anna, from: date) }
        Self.expectRefused(date, "the last wake day") { _ = try summaries.naps(for: anna, through: date) }
    }

    @Test("summaries as of the edges are computed, and the whole range lists every night", arguments: inside)
    func summariesAtEdges(asOf: LocalDate) throws {
        let (fixture, anna) = try Self.fixture()
        defer { fixture.close() }
        let summaries = SummaryService(session: fixture.session)
        for horizon in Horizon.allCases {
            guard case .found(let summary) = try summaries.summary(for: anna, horizon: horizon, asOf: asOf) else {
                Issue.record("no \(horizon) summary as of \(asOf)")
                continue
            }
            #expect(summary.asOf == asOf)
            #expect(summary.debt.trackedNights == 0)
        }
        let all = try summaries.nights(for: anna)
        #expect(!all.isEmpty)
        #expect(try summaries.nights(for: anna, from: Self.inside[0], through: Self.inside[1]) == all)
        #expect(
            try summaries.naps(for: anna, from: Self.inside[0], through: Self.inside[1]) == summaries.naps(for: anna))
    }
}
