import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Migrations")
struct MigratorTests {
    static let first = Migration(version: 1, name: "first", sql: "CREATE TABLE first_table (n int);")
    static let second = Migration(
        version: 2, name: "second", sql: "CREATE TABLE second_table (n int);\nINSERT INTO second_table VALUES (1), (2);"
    )

    @Test("a fresh database gets every migration in order; a second run applies nothing")
    func freshThenNoOp() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let migrator = try Migrator(migrations: [Self.second, Self.first])
        #expect(try migrator.status(on: connection).map(\.state) == [.pending, .pending])
        let applied = try migrator.migrate(on: connection)
        #expect(applied.map(\.version) == [1, 2])
        #expect(try migrator.migrate(on: connection).isEmpty)
        let status = try migrator.status(on: connection)
        #expect(status.map(\.version) == [1, 2])
        #expect(status.map(\.state) == [.applied, .applied])
        #expect(status.allSatisfy { $0.appliedAt != nil })
        #expect(try connection.execute("SELECT count(*) FROM second_table").single().int(0) == 2)
        let recorded = try connection.execute("SELECT version, name FROM schema_migrations ORDER BY version").rows
        #expect(try recorded.map { try $0.int("version") } == [1, 2])
        #expect(try recorded.map { try $0.string("name") } == ["first", "second"])
        try migrator.checkCompatible(on: connection, requireCurrent: true)
    }

    @Test("the repository's migrations apply to an empty database and are all recorded")
    func repositoryMigrations() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let migrator = try Migrator(folder: TestDatabase.migrationsFolder)
        #expect(migrator.migrations.first?.fileName == "0001_foundation.sql")
        let applied = try migrator.migrate(on: connection)
        #expect(applied.count == migrator.migrations.count)
        #expect(try migrator.migrate(on: connection).isEmpty)
        let tables = try connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).rows.map { try $0.string(0) }
        for table in ["imports", "rollup_state", "schema_migrations", "sleep_samples", "users"] {
            #expect(tables.contains(table))
        }
    }

    @Test("a database migrated by a newer program is refused with schemaTooNew")
    func refusesNewerSchema() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try Migrator(migrations: [Self.first, Self.second]).migrate(on: connection)
        let older = try Migrator(migrations: [Self.first])
        let status = try older.status(on: connection)
        #expect(status.map(\.state) == [.applied, .unknown])
        #expect(status.last?.name == "second")
        let check = #expect(throws: StoreError.self) {
            try older.checkCompatible(on: connection, requireCurrent: false)
        }
        #expect(check?.kind == .schemaTooNew)
        #expect(check?.message.contains("version 2") == true)
        let migrate = #expect(throws: StoreError.self) { try older.migrate(on: connection) }
        #expect(migrate?.kind == .schemaTooNew)
    }

    @Test("pending migrations are refused only when a current schema is required")
    func refusesPendingWhenRequired() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try Migrator(migrations: [Self.first]).migrate(on: connection)
        let newer = try Migrator(migrations: [Self.first, Self.second])
        try newer.checkCompatible(on: connection, requireCurrent: false)
        let error = #expect(throws: StoreError.self) { try newer.checkCompatible(on: connection, requireCurrent: true) }
        #expect(error?.kind == .schemaPending)
        #expect(error?.message.contains("sleepledger migrate") == true)
        #expect(error?.detail?.contains("0002_second.sql") == true)
        #expect(try newer.status(on: connection).map(\.state) == [.applied, .pending])
    }

    @Test("a database with no version table has everything pending")
    func emptyDatabaseIsPending() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let migrator = try Migrator(migrations: [Self.first])
        let error = #expect(throws: StoreError.self) {
            try migrator.checkCompatible(on: connection, requireCurrent: true)
        }
        #expect(error?.kind == .schemaPending)
    }

    @Test("a failing migration names its file, is rolled back, and keeps earlier ones")
    func failingMigration() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let broken = Migration(
            version: 2, name: "broken", sql: "CREATE TABLE half_done (n int);\nSELECT * FROM missing_table;")
        let error = #expect(throws: StoreError.self) {
            try Migrator(migrations: [Self.first, broken]).migrate(on: connection)
        }
        #expect(error?.kind == .migrationFailed)
        #expect(error?.statement == "0002_broken.sql")
        #expect(error?.sqlState == "42P01")
        let tables = try connection.execute(
            "SELECT to_regclass('first_table') IS NOT NULL, to_regclass('half_done') IS NOT NULL"
        ).single()
        #expect(try tables.bool(0) == true)
        #expect(try tables.bool(1) == false)
        #expect(try connection.execute("SELECT max(version) FROM schema_migrations").single().int(0) == 1)
    }

    @Test("two connections migrating at once apply each migration once")
    func concurrentMigrate() async throws {
        let database = try TestDatabase.fresh()
        let slow = Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE slow_table (n int);")
        let migrator = try Migrator(migrations: [slow, Self.second])
        let conninfo = database.conninfo
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread.detachNewThread {
                            continuation.resume(
                                with: Result {
                                    let connection = try Connection(conninfo: conninfo)
                                    return try migrator.migrate(on: connection).count
                                })
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.sorted() == [0, 2])
    }

    @Test("migration files are read by version; malformed names and duplicate versions are refused")
    func loadingFiles() throws {
        let folder = NSTemporaryDirectory() + "/sleepledger-migrations-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "SELECT 2;".write(toFile: folder + "/0002_second.sql", atomically: true, encoding: .utf8)
        try "SELECT 1;".write(toFile: folder + "/0001_first.sql", atomically: true, encoding: .utf8)
        try "notes".write(toFile: folder + "/README.md", atomically: true, encoding: .utf8)
        let migrator = try Migrator(folder: folder)
        #expect(migrator.migrations.map(\.fileName) == ["0001_first.sql", "0002_second.sql"])
        #expect(migrator.latestVersion == 2)
        #expect(Migrator.isMigrationsFolder(folder))

        try "SELECT 3;".write(toFile: folder + "/0002_again.sql", atomically: true, encoding: .utf8)
        let duplicate = #expect(throws: StoreError.self) { try Migrator(folder: folder) }
        #expect(duplicate?.kind == .migrationFailed)
        try FileManager.default.removeItem(atPath: folder + "/0002_again.sql")

        try "SELECT 4;".write(toFile: folder + "/4_Bad-Name.sql", atomically: true, encoding: .utf8)
        let malformed = #expect(throws: StoreError.self) { try Migrator(folder: folder) }
        #expect(malformed?.message.contains("4_Bad-Name.sql") == true)
    }

    @Test(
        "file names parse into version and name",
        arguments: [
            ("0001_foundation.sql", 1, "foundation"),
            ("0012_nightly_rollups.sql", 12, "nightly_rollups"),
            ("10000_far_future.sql", 10000, "far_future"),
        ])
    func parseNames(fileName: String, version: Int, name: String) {
        let parsed = Migration.parseFileName(fileName)
        #expect(parsed?.version == version)
        #expect(parsed?.name == name)
    }

    @Test(
        "malformed file names are rejected",
        arguments: [
            "001_short.sql", "0001-dash.sql", "0001_.sql", "0001_Upper.sql", "0000_zero.sql", "0001_x.txt",
            "abcd_x.sql",
        ])
    func rejectNames(fileName: String) {
        #expect(Migration.parseFileName(fileName) == nil)
    }

    @Test("the migrations folder is found from the environment, an install prefix or a parent folder")
    func locateFolder() throws {
        let root = NSTemporaryDirectory() + "/sleepledger-locate-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fileManager = FileManager.default
        // Installed layout: <prefix>/bin/sleepledger, <prefix>/share/sleepledger/migrations.
        try fileManager.createDirectory(atPath: root + "/prefix/bin", withIntermediateDirectories: true)
        try fileManager.createDirectory(
            atPath: root + "/prefix/share/sleepledger/migrations", withIntermediateDirectories: true)
        try "".write(
            toFile: root + "/prefix/share/sleepledger/migrations/0001_a.sql", atomically: true, encoding: .utf8)
        // Checkout layout: <repo>/migrations and <repo>/.build/debug/sleepledger.
        try fileManager.createDirectory(atPath: root + "/repo/.build/debug", withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: root + "/repo/migrations", withIntermediateDirectories: true)
        try "".write(toFile: root + "/repo/migrations/0001_a.sql", atomically: true, encoding: .utf8)
        try fileManager.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: true)

        #expect(
            Migrator.locateMigrationsFolder(
                environment: ["SLEEPLEDGER_MIGRATIONS": "/opt/custom"],
                executablePath: root + "/prefix/bin/sleepledger",
                currentDirectory: root) == "/opt/custom")
        #expect(
            Migrator.locateMigrationsFolder(
                environment: [:], executablePath: root + "/prefix/bin/sleepledger",
                currentDirectory: root + "/elsewhere"
            )
            .map { ($0 as NSString).standardizingPath }
                == (root + "/prefix/share/sleepledger/migrations" as NSString).standardizingPath)
        #expect(
            Migrator.locateMigrationsFolder(
                environment: [:], executablePath: root + "/repo/.build/debug/sleepledger",
                currentDirectory: root + "/elsewhere"
            )
            .map { ($0 as NSString).standardizingPath }
                == (root + "/repo/migrations" as NSString).standardizingPath)
        #expect(
            Migrator.locateMigrationsFolder(
                environment: [:], executablePath: root + "/elsewhere/sleepledger",
                currentDirectory: root + "/repo/migrations"
            )
            .map { ($0 as NSString).standardizingPath }
                == (root + "/repo/migrations" as NSString).standardizingPath)
    }
}
