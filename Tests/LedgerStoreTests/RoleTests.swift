import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Database roles")
struct RoleTests {
    @Test("roles.sql is read from beside the migrations folder, and its absence is named")
    func scriptIsFoundBesideTheMigrations() throws {
        let script = try DatabaseRoles.script(migrationsFolder: TestDatabase.migrationsFolder)
        #expect(script.contains("CREATE ROLE sleepledger_readonly") || script.contains("sleepledger_readonly"))
        let error = #expect(throws: StoreError.self) {
            try DatabaseRoles.script(migrationsFolder: "/nonexistent/sleepledger/migrations")
        }
        #expect(error?.kind == .migrationFailed)
        #expect(error?.detail?.contains("/nonexistent/sleepledger/deploy/postgres/roles.sql") == true)
    }

    @Test("the read-only role cannot write even after SET TRANSACTION READ WRITE")
    func readOnlyCannotWrite() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        try UserStore(connection: connection).add(handle: "anna", timeZone: "Europe/Berlin")
        try connection.execute("SET ROLE sleepledger_readonly")
        #expect(try connection.execute("SELECT count(*) FROM users").single().int(0) == 1)
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.execute("SET TRANSACTION READ WRITE")
                try connection.execute(
                    "INSERT INTO users (handle, time_zone) VALUES ($1, $2)", [.text("eve"), .text("UTC")])
            }
        }
        #expect(error?.sqlState == "42501")  // insufficient_privilege, not read_only_sql_transaction
        let delete = #expect(throws: PostgresError.self) { try connection.execute("DELETE FROM users") }
        #expect(delete?.sqlState == "42501")
        let ddl = #expect(throws: PostgresError.self) { try connection.execute("CREATE TABLE sneaky (n int)") }
        #expect(ddl?.sqlState == "42501")
    }

    @Test("the read-only role's sessions start read-only")
    func readOnlySetting() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        let setting = try connection.execute(
            """
            SELECT s.setconfig::text FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
            WHERE r.rolname = 'sleepledger_readonly' AND s.setdatabase = 0
            """
        ).single().string(0)
        #expect(setting?.contains("default_transaction_read_only=on") == true)
        let login = try connection.execute(
            "SELECT rolcanlogin, rolsuper, rolcreaterole FROM pg_roles WHERE rolname = 'sleepledger_readonly'"
        ).single()
        #expect(try login.bool(0) == true)
        #expect(try login.bool(1) == false)
        #expect(try login.bool(2) == false)
    }

    @Test("the owner role can log in (as Citus needs) but has no password, and an older NOLOGIN owner is changed")
    func ownerLogsInWithoutPassword() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        func owner() throws -> (canLogIn: Bool?, hasPassword: Bool?, isSuper: Bool?) {
            let row = try connection.execute(
                "SELECT rolcanlogin, rolpassword IS NOT NULL, rolsuper FROM pg_authid WHERE rolname = 'sleepledger_owner'"
            ).single()
            return (try row.bool(0), try row.bool(1), try row.bool(2))
        }
        #expect(try owner() == (true, false, false))
        // Roles are cluster-wide and other tests apply roles.sql meanwhile: a concurrent
        // ALTER ROLE can fail with "tuple concurrently updated", so the pair is tried again.
        for attempt in 1...5 {
            do {
                try connection.execute("ALTER ROLE sleepledger_owner NOLOGIN")
                try TestDatabase.applyRoles(on: connection)
                break
            } catch let error as PostgresError where attempt < 5 {
                _ = error
                usleep(100_000)
            }
        }
        #expect(try owner() == (true, false, false))
    }

    @Test("the application role reads and writes rows but cannot change the schema or the version table")
    func applicationRole() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("SET ROLE sleepledger_app")
        let user = try UserStore(connection: connection).add(handle: "ben", timeZone: "UTC")
        try connection.execute(
            "INSERT INTO imports (user_id, file_name, size_bytes, sha256, kind) VALUES ($1, 'export.zip', 10, $2, 'zip')",
            [.int64(user.id), .text(String(repeating: "ab", count: 32))])
        try UserStore(connection: connection).update(handle: "ben", timeZone: "Europe/Paris")
        try UserStore(connection: connection).remove(handle: "ben")
        let ddl = #expect(throws: PostgresError.self) { try connection.execute("DROP TABLE sleep_samples") }
        #expect(ddl?.sqlState == "42501")
        let version = #expect(throws: PostgresError.self) {
            try connection.execute("DELETE FROM schema_migrations")
        }
        #expect(version?.sqlState == "42501")
        #expect(try connection.execute("SELECT count(*) FROM schema_migrations").single().int(0)! >= 1)
    }

    @Test("tables are owned by sleepledger_owner and later tables are covered by default privileges")
    func ownershipAndDefaultPrivileges() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        let owners = try connection.execute(
            "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'"
        ).rows.map { try $0.string(0) }
        #expect(owners == ["sleepledger_owner"])
        // A later migration creates a table as the migrating user; before roles.sql runs
        // again, default privileges already let the app and read-only roles use it.
        try connection.execute("CREATE TABLE later_table (user_id bigint, n int)")
        try connection.execute("SET ROLE sleepledger_app")
        try connection.execute("INSERT INTO later_table VALUES (1, 2)")
        try connection.execute("RESET ROLE")
        try connection.execute("SET ROLE sleepledger_readonly")
        #expect(try connection.execute("SELECT n FROM later_table").single().int(0) == 2)
        try connection.execute("RESET ROLE")
        // And a table created as the owner role is covered too.
        try connection.execute("SET ROLE sleepledger_owner")
        try connection.execute("CREATE TABLE owner_table (n int)")
        try connection.execute("SET ROLE sleepledger_readonly")
        #expect(try connection.execute("SELECT count(*) FROM owner_table").single().int(0) == 0)
    }

    @Test("the roles script can run again and again, and once in place changes no advisory lock function again")
    func idempotent() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        #expect(
            try DatabaseRoles.script(migrationsFolder: TestDatabase.migrationsFolder).contains(
                "SELECT pg_advisory_xact_lock(\(DatabaseRoles.scriptLockKey));"))
        let versions = """
            SELECT string_agg(xmin::text, ',' ORDER BY oid) FROM pg_proc
            WHERE pronamespace = 'pg_catalog'::regnamespace AND proname LIKE 'pg%advisory%lock%'
            """
        let before = try connection.execute(versions).single().string(0)
        try TestDatabase.applyRoles(on: connection)
        try TestDatabase.applyRoles(on: connection)
        #expect(try connection.execute(versions).single().string(0) == before)
        let roles = try connection.execute(
            "SELECT rolname FROM pg_roles WHERE rolname LIKE 'sleepledger\\_%' ORDER BY rolname"
        ).rows.map { try $0.string(0) }
        #expect(roles == ["sleepledger_app", "sleepledger_owner", "sleepledger_readonly", "sleepledger_server"])
    }

    @Test("concurrent runs of the roles script on several databases of one cluster all succeed")
    func concurrentRuns() async throws {
        var conninfos: [String] = []
        for _ in 0..<4 {
            let database = try TestDatabase.fresh()
            let connection = try Connection(conninfo: database.conninfo)
            try Migrator(folder: TestDatabase.migrationsFolder).migrate(on: connection)
            conninfos.append(database.conninfo)
        }
        let databases = conninfos
        let runs = try await onThreads(databases.count) { index in
            try DatabaseRoles.apply(
                on: try Connection(conninfo: databases[index]),
                script: DatabaseRoles.script(migrationsFolder: TestDatabase.migrationsFolder))
            return true
        }
        #expect(runs == [true, true, true, true])
    }
}
