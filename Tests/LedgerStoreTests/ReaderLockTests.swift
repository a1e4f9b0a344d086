import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerStore

/// What a session of the read-only role may not take, so that it cannot hold up a writer:
/// no advisory lock, no row lock, no table lock above `ACCESS SHARE`, no signal to another
/// role's backend, no `SECURITY DEFINER` function. Each attempt runs in a `READ WRITE`
/// transaction, as after the role turned its own read-only default off: the missing
/// privilege refuses it (SQLSTATE 42501), not the setting.
@Suite("What a read-only session may not hold")
struct ReaderLockTests {
    /// A migrated database with one user and one queued job, and a session of the
    /// read-only role in it.
    struct Setup {
        let conninfo: String
        let owner: Connection
        let reader: Connection

        init() throws {
            conninfo = try TestDatabase.migrated().conninfo
            owner = try Connection(conninfo: conninfo)
            let anna = try UserStore(connection: owner).add(handle: "anna", timeZone: "UTC")
            _ = try ImportJobStore(connection: owner).enqueue(
                userID: anna.id, fileName: "export.zip", contentType: nil, sizeBytes: 1,
                sha256: String(repeating: "ab", count: 32), spoolHost: "host", spoolPath: "/spool/1")
            reader = try Connection(
                conninfo: ConnectionString.settingParameter("user", to: DatabaseRoles.readOnly, in: conninfo))
        }

        /// The tables of schema `public` the reader may read.
        func readableTables() throws -> [String] {
            try reader.execute(
                """
                SELECT c.oid::regclass::text FROM pg_class c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
                  AND has_table_privilege(c.oid, 'SELECT')
                ORDER BY 1
                """
            ).rows.map { try $0.string(0) ?? "" }
        }

        /// The SQLSTATE `statement` fails with as the reader, in a `READ WRITE` transaction;
        /// `nil` when it succeeds.
        func refusal(_ statement: String) -> String? {
            do {
                try reader.transaction { connection in
                    try connection.execute("SET TRANSACTION READ WRITE")
                    try connection.execute(statement)
                }
                return nil
            } catch let error as PostgresError {
                return error.sqlState ?? "no SQLSTATE"
            } catch {
                return "\(error)"
            }
        }

        func close() {
            reader.close()
            owner.close()
        }
    }

    /// Every advisory lock function that takes a lock (roles.sql takes them from PUBLIC).
    static let advisoryLockFunctions = [
        "pg_advisory_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
        "pg_try_advisory_lock", "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared",
    ]

    /// The advisory lock class ("SLJB") a worker's claim on a job took until migration 0019
    /// made claims leases: still refused, as any key is.
    static let claimLockClass: Int32 = 1_397_508_674

    @Test(
        "no advisory lock, on the keys the writers use: the migrator's, roles.sql's, a job claim's before migration 0019",
        arguments: advisoryLockFunctions)
    func advisoryLocks(function: String) throws {
        let setup = try Setup()
        defer { setup.close() }
        for arguments in [
            "\(Migrator.advisoryLockKey)", "\(DatabaseRoles.scriptLockKey)", "\(Self.claimLockClass), 1",
        ] {
            #expect(setup.refusal("SELECT \(function)(\(arguments))") == "42501", "\(function)(\(arguments))")
        }
        // The writers keep them.
        for role in [DatabaseRoles.application, DatabaseRoles.server, DatabaseRoles.owner] {
            try setup.owner.transaction { connection in
                try connection.execute("SET LOCAL ROLE \(role)")
                try connection.execute("SELECT \(function)(\(Self.claimLockClass), 2)")
            }
            try setup.owner.execute("SELECT pg_advisory_unlock_all()")
        }
    }

    @Test(
        "no row lock on any table, in any mode",
        arguments: ["FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"])
    func rowLocks(mode: String) throws {
        let setup = try Setup()
        defer { setup.close() }
        let tables = try setup.readableTables()
        #expect(tables.contains("import_locks") && tables.contains("import_jobs") && tables.contains("rollup_state"))
        for table in tables {
            #expect(setup.refusal("SELECT 1 FROM \(table) LIMIT 1 \(mode)") == "42501", "\(table) \(mode)")
        }
    }

    @Test(
        "no table lock above ACCESS SHARE, on any table",
        arguments: [
            "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE",
            "ACCESS EXCLUSIVE",
        ])
    func tableLocks(mode: String) throws {
        let setup = try Setup()
        defer { setup.close() }
        for table in try setup.readableTables() {
            #expect(setup.refusal("LOCK TABLE \(table) IN \(mode) MODE") == "42501", "\(table) \(mode)")
        }
    }

    @Test("no signal to a writer's backend", arguments: ["pg_cancel_backend", "pg_terminate_backend"])
    func signals(function: String) throws {
        let setup = try Setup()
        defer { setup.close() }
        let writer = try Connection(
            conninfo: ConnectionString.settingParameter("user", to: DatabaseRoles.application, in: setup.conninfo))
        defer { writer.close() }
        let pid = try #require(try writer.execute("SELECT pg_backend_pid()").single().int(0))
        #expect(setup.refusal("SELECT \(function)(\(pid))") == "42501")
        #expect(try writer.execute("SELECT 1").single().int(0) == 1)
    }

    @Test("no SECURITY DEFINER function: the queue's claim, the sign-in and token look-ups")
    func securityDefinerFunctions() throws {
        let setup = try Setup()
        defer { setup.close() }
        let functions = try setup.reader.execute(
            """
            SELECT p.oid::regprocedure::text, has_function_privilege(p.oid, 'EXECUTE') FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace AND p.prosecdef ORDER BY 1
            """
        ).rows.map { (try $0.string(0) ?? "", try $0.bool(1)) }
        #expect(functions.map(\.0).contains("sleepledger_claim_import_job(text,boolean,uuid,double precision)"))
        for (function, mayExecute) in functions {
            #expect(mayExecute == false, "\(function)")
        }
        #expect(
            setup.refusal(
                "SELECT * FROM sleepledger_claim_import_job('host', true, '00000000-0000-0000-0000-000000000001', 60)")
                == "42501")
        #expect(try setup.owner.execute("SELECT state FROM import_jobs").single().string(0) == "queued")
    }
}
