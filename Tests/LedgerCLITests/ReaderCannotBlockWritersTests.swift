import ExportFixtures
import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import Testing

@testable import LedgerServices

/// A session of the read-only role that holds everything it may hold while a writer runs:
/// with its read-only default turned off for the session, one open transaction that has
/// read, and locked in `ACCESS SHARE` mode, every table it may read, a `LISTEN` and a
/// temporary table of its own; and it has tried to take, and been refused, the advisory
/// locks the writers use and row locks on the rows they lock. ``release()`` ends it.
final class HeldReader: @unchecked Sendable {
    let connection: Connection
    /// The tables it read and holds `ACCESS SHARE` on.
    let tables: [String]
    /// What it tried and could not take, with the SQLSTATE it was refused with (`nil`
    /// for an attempt that succeeded).
    let refusals: [(statement: String, sqlState: String?)]

    /// Connects as the read-only role on `conninfo`; tries the claim locks of jobs
    /// `jobIDs` and the pre-0008 import locks of users `userIDs`.
    init(conninfo: String, jobIDs: ClosedRange<Int64> = 1...20, userIDs: [Int64] = [1]) throws {
        connection = try Connection(
            conninfo: ConnectionString.settingParameter("user", to: DatabaseRoles.readOnly, in: conninfo))
        try connection.execute("SET default_transaction_read_only = off")
        try connection.execute("BEGIN")
        tables = try connection.execute(
            """
            SELECT c.oid::regclass::text FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
              AND has_table_privilege(c.oid, 'SELECT')
            ORDER BY 1
            """
        ).rows.map { try $0.string(0) ?? "" }
        for table in tables {
            try connection.execute("SELECT count(*) FROM \(table)")
            try connection.execute("LOCK TABLE \(table) IN ACCESS SHARE MODE")
        }
        try connection.execute("LISTEN sleepledger")
        try connection.execute("CREATE TEMP TABLE reader_scratch (n int)")

        var attempts: [String] = []
        for key in [Migrator.advisoryLockKey, DatabaseRoles.scriptLockKey] {
            attempts += ["SELECT pg_advisory_lock(\(key))", "SELECT pg_advisory_lock_shared(\(key))"]
        }
        for id in jobIDs {
            // The claim keys of jobs before migration 0019 made claims leases.
            attempts.append("SELECT pg_advisory_lock(1397508674, \(id))")
        }
        for id in userIDs {
            attempts.append("SELECT pg_advisory_lock(1397508429, \(id))")
        }
        for table in ["import_locks", "rollup_state", "import_jobs", "users"] {
            attempts.append("SELECT 1 FROM \(table) FOR KEY SHARE")
        }
        var refusals: [(String, String?)] = []
        for (index, statement) in attempts.enumerated() {
            // A savepoint keeps the transaction, and the locks taken before it, alive.
            try connection.execute("SAVEPOINT attempt_\(index)")
            do {
                try connection.execute(statement)
                refusals.append((statement, nil))
            } catch let error as PostgresError {
                refusals.append((statement, error.sqlState))
                try connection.execute("ROLLBACK TO SAVEPOINT attempt_\(index)")
            }
        }
        self.refusals = refusals
    }

    /// The relations this session holds `AccessShareLock` on and the advisory locks it
    /// holds, as the server's `pg_locks` shows them to `observer`.
    func heldLocks(seenBy observer: Connection) throws -> (tables: Set<String>, advisory: Int) {
        let pid = try connection.execute("SELECT pg_backend_pid()").single().int(0) ?? 0
        let tables = try observer.execute(
            """
            SELECT relation::regclass::text FROM pg_locks
            WHERE pid = $1 AND locktype = 'relation' AND mode = 'AccessShareLock' AND granted
            """, [.int(pid)]
        ).rows.map { try $0.string(0) ?? "" }
        let advisory = try observer.execute(
            "SELECT count(*) FROM pg_locks WHERE pid = $1 AND locktype = 'advisory'", [.int(pid)]
        ).single().int(0)
        return (Set(tables), advisory ?? -1)
    }

    /// Ends the transaction and the session.
    func release() {
        _ = try? connection.execute("ROLLBACK")
        connection.close()
    }
}

/// No session of the read-only role holds up an import, a rollup or an upload: whatever
/// it holds, each finishes within a bound while it holds it. Before roles.sql took the
/// advisory lock functions away from it, it could hold the import queue's claim lock of
/// the next job, and a worker claiming that job waited for as long as it liked.
@Suite("A reader cannot hold up the writers")
struct ReaderCannotBlockWritersTests {
    /// Seconds a writer may take while the reader holds on (a blocked one never finishes).
    static let bound: Double = 90

    /// One command's outcome, from another thread.
    struct Outcome: Sendable {
        var code: ExitCode
        var printed: String
        var errorText: String
    }

    static func run(_ arguments: [String], _ environment: [String: String]) -> Outcome {
        let (code, captured) = runTool(arguments, environment: environment)
        return Outcome(code: code, printed: captured.printed, errorText: captured.errorText)
    }

    /// Runs `body` (a writer) while `reader` holds on, expecting it to finish in time.
    static func whileHeld<T: Sendable>(
        _ reader: HeldReader, _ what: String, _ body: @escaping @Sendable () throws -> T
    ) throws -> T {
        let finished = finishing(within: bound, body)
        if !finished.didFinish {
            Issue.record("\(what) waited for the read-only session for \(Int(bound)) s")
            reader.release()
            _ = finished.waitForThread()
        }
        return try #require(finished.result).get()
    }

    /// Checks what the reader holds and that it was refused everything else.
    static func checkHeld(_ reader: HeldReader, observer: Connection) throws {
        #expect(reader.tables.count >= 10)
        for (statement, sqlState) in reader.refusals {
            #expect(sqlState == "42501", "\(statement) was not refused for lack of privilege")
        }
        let held = try reader.heldLocks(seenBy: observer)
        #expect(held.tables.isSuperset(of: reader.tables), "\(held.tables)")
        #expect(held.advisory == 0)
    }

    enum Writer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case importCommand = "sleepledger import"
        case rollupCommand = "sleepledger rollup"
        case upload = "an upload through the server, imported and rolled up by its worker"
        var testDescription: String { rawValue }
    }

    @Test("each writer finishes while a reader holds everything it may", arguments: Writer.allCases)
    func writersGoOn(_ writer: Writer) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("held-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = generatedSamples(nights: 20)
        let zip = folder.appendingPathComponent("export.zip").path
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: 3), toPath: zip)

        var server: ServerProcess?
        if writer == .upload { server = try ServerProcess() }
        let superuser = try server.map(\.environment) ?? migratedEnvironment()
        let conninfo = superuser["DATABASE_URL"] ?? ""
        // The operator's tools as the application role, as in production.
        let application = superuser.merging(
            ["DATABASE_URL": try ConnectionString.settingParameter("user", to: DatabaseRoles.application, in: conninfo)]
        ) { $1 }
        let token = try server.map { try ServerTests.user("anna", $0) }
        if server == nil {
            #expect(Self.run(["user", "add", "anna", "--time-zone", "Europe/Berlin"], application).code == .success)
        }
        if writer == .rollupCommand {
            #expect(Self.run(["import", "--user", "anna", zip], application).code == .success)
        }
        let observer = try Connection(conninfo: conninfo)
        defer { observer.close() }

        let reader = try HeldReader(conninfo: conninfo)
        defer { reader.release() }
        try Self.checkHeld(reader, observer: observer)

        switch writer {
        case .importCommand:
            let outcome = try Self.whileHeld(reader, writer.rawValue) {
                Self.run(["import", "--user", "anna", zip], application)
            }
            #expect(outcome.code == .success, "\(outcome.errorText)")
            #expect(try observer.execute("SELECT count(*) FROM sleep_samples").single().int(0) == samples.count)
        case .rollupCommand:
            // As the test database's superuser, like the other rollup tests: the rollup
            // writes nights with COPY, which PostgreSQL refuses to a role held to
            // row-level security (sleepledger_app is, on an external server).
            let outcome = try Self.whileHeld(reader, writer.rawValue) {
                Self.run(["rollup", "--as-of", "2023-01-21"], superuser)
            }
            #expect(outcome.code == .success, "\(outcome.errorText)")
            #expect(try observer.execute("SELECT count(*) FROM nights").single().int(0) ?? 0 >= 15)
            #expect(try observer.execute("SELECT count(*) FROM summaries").single().int(0) == 6)
        case .upload:
            let server = try #require(server)
            let token = try #require(token)
            let state = try Self.whileHeld(reader, writer.rawValue) { () throws -> String? in
                let upload = try server.curl(
                    "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip],
                    token: token)
                guard upload.status == 202, let id = upload.importObject["id"] as? Int else {
                    return "refused \(upload.status): \(upload.body)"
                }
                let done = try ServerTests.waitForImport(id, token: token, server, seconds: Self.bound)
                return done.importObject["state"] as? String
            }
            #expect(state == "done", "\(server.logText)")
            #expect(try observer.execute("SELECT count(*) FROM sleep_samples").single().int(0) == samples.count)
        }
        // The reader held on throughout.
        #expect(try reader.heldLocks(seenBy: observer).tables.isSuperset(of: reader.tables))
    }

    @Test(
        """
        on the embedded default, the reader may ALTER ROLE itself read-write: the admin tool still writes nothing, \
        and import and rollup (which migrate and apply roles.sql first, restoring the setting) finish while it holds on
        """)
    func embeddedDefault() throws {
        let cluster = try PrivateCluster("held-reader")
        defer { cluster.stop() }
        let (home, environment, database) = (cluster.home, cluster.environment, cluster.database)
        #expect(Self.run(["user", "add", "anna", "--time-zone", "Europe/Berlin"], environment).code == .success)
        let conninfo = try #require(database.clusterConninfo())
        let readerConninfo = try ConnectionString.settingParameter("user", to: DatabaseRoles.readOnly, in: conninfo)
        func readerDefault() throws -> String? {
            let connection = try Connection(conninfo: readerConninfo)
            defer { connection.close() }
            return try connection.execute("SHOW default_transaction_read_only").single().string(0)
        }

        // The role may change its own default for every new session: not inside a
        // read-only transaction, but once it turned that off for itself.
        let reader = try Connection(conninfo: readerConninfo)
        let alter = "ALTER ROLE \(DatabaseRoles.readOnly) SET default_transaction_read_only = off"
        let refused = #expect(throws: PostgresError.self) { try reader.execute(alter) }
        #expect(refused?.sqlState == "25006")
        try reader.execute("SET default_transaction_read_only = off")
        try reader.execute(alter)
        reader.close()
        #expect(try readerDefault() == "off")

        // The admin tool's own session is read-only all the same.
        let session = try database.openReadOnly(readOnlyURL: nil)
        defer { session.close() }
        let write = #expect(throws: PostgresError.self) {
            try session.connection.execute("UPDATE users SET time_zone = 'UTC'")
        }
        #expect(write?.sqlState == "25006")
        let (code, captured) = runAdmin(["users", "--format", "csv"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("anna,Europe/Berlin"))

        let folder = home.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zip = folder.appendingPathComponent("export.zip").path
        let samples = generatedSamples(nights: 20)
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: 3), toPath: zip)
        let observer = try Connection(conninfo: conninfo)
        defer { observer.close() }
        let held = try HeldReader(conninfo: conninfo)
        defer { held.release() }
        try Self.checkHeld(held, observer: observer)
        let imported = try Self.whileHeld(held, "sleepledger import") {
            Self.run(["import", "--user", "anna", zip], environment)
        }
        #expect(imported.code == .success, "\(imported.errorText)")
        let rolledUp = try Self.whileHeld(held, "sleepledger rollup") {
            Self.run(["rollup", "--as-of", "2023-01-21"], environment)
        }
        #expect(rolledUp.code == .success, "\(rolledUp.errorText)")
        #expect(try observer.execute("SELECT count(*) FROM summaries").single().int(0) == 6)
        // roles.sql, applied by those writing sessions, set the role's default back.
        #expect(try readerDefault() == "on")
    }
}
