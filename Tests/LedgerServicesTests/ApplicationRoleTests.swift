import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerServices

/// The operator's role on an external server, `sleepledger_app`: held to the tables'
/// forced row-level security (its policies show it every row), unlike the embedded
/// cluster's superuser, which bypasses it.
@Suite("The operator's role")
struct ApplicationRoleTests {
    @Test(
        "an import and the rollup as sleepledger_app store what the superuser's do (the rollup's COPY goes through a staging table)"
    )
    func importAndRollUp() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let url = try ConnectionString.settingParameter("user", to: DatabaseRoles.application, in: fixture.conninfo)
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(url)), migrationsFolder: TestDatabase.migrationsFolder)
        let session = try database.open(access: .writes)
        defer { session.close() }
        let held = try session.connection.execute("SELECT row_security_active('nights')").single().bool(0)
        #expect(held == true, "the role is held to row-level security")

        let asOf = LocalDate(year: 2024, month: 3, day: 1)
        let now = Int64(asOf.daysSinceEpoch) * 86_400 + 12 * 3600
        let anna = try UserService(session: session).add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        let samples = SleepStreamGenerator(seed: 9).samples(
            from: asOf.adding(days: -60), through: asOf.adding(days: -1))
        _ = try ImportService(session: session).importInput(
            .path(try fixture.writeZip("export.zip", samples: samples)), for: anna)
        let settings = RollupSettings(asOf: asOf)
        let report = try RollupService(database: database, settings: settings).run(now: now)
        #expect(report.usersDone == 1 && report.usersFailed == 0)
        // Twice in one session: the staging table is reused, and empty again after each commit.
        let again = try RollupService(database: database, settings: RollupSettings(isFullRebuild: true, asOf: asOf))
            .run(now: now)
        #expect(again.usersDone == 1 && again.usersFailed == 0)

        let store = NightStore(connection: fixture.session.connection)
        let written = try store.nights(userID: anna.id)
        let writtenNaps = try store.naps(userID: anna.id)
        #expect(written.count > 40)
        // The superuser's rebuild of the same samples stores the same nights and naps.
        let superuser = try RollupService(
            database: fixture.database, settings: RollupSettings(isFullRebuild: true, asOf: asOf)
        ).run(now: now)
        #expect(superuser.usersDone == 1)
        #expect(try store.nights(userID: anna.id) == written)
        #expect(try store.naps(userID: anna.id) == writtenNaps)
    }
}
