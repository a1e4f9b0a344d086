import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerServices

/// The admin tool cannot write, refuses schemas it does not know, and never starts,
/// creates or migrates anything.
@Suite("sleepledger-admin is read-only")
struct AdminReadOnlyTests {
    @Test(
        "a write through its connection fails, even after SET TRANSACTION READ WRITE",
        arguments: ["admin-url", "database-url"])
    func writesFail(setting: String) throws {
        let fixture = try AdminFixture.shared()
        // Either its own setting pointing at the read-only role, or DATABASE_URL (a
        // superuser!), which the admin tool rewrites to connect as the read-only role.
        let environment =
            setting == "admin-url"
            ? fixture.environment
            : ["DATABASE_URL": fixture.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
        let configuration = try Configuration(environment: environment, isTerminal: false)
        let session = try configuration.database.openReadOnly(readOnlyURL: configuration.readOnlyURL)
        defer { session.close() }
        let connection = session.connection
        #expect(try connection.execute("SELECT current_user").single().string(0) == "sleepledger_readonly")
        #expect(try connection.execute("SHOW default_transaction_read_only").single().string(0) == "on")

        // Inside the read-only transaction the admin tool uses: refused by the transaction.
        #expect(throws: PostgresError.self) {
            try connection.readOnlyTransaction { connection in
                try connection.execute("UPDATE users SET time_zone = 'UTC' WHERE handle = 'anna'")
            }
        }
        // Switching the transaction to read-write is allowed by PostgreSQL, but the role
        // lacks the privileges: every write still fails, with SQLSTATE 42501.
        for statement in [
            "UPDATE users SET time_zone = 'UTC' WHERE handle = 'anna'",
            "DELETE FROM summaries",
            "INSERT INTO rollup_state (user_id) VALUES (999999)",
            "CREATE TABLE intruder (id int)",
        ] {
            let error = #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.execute("SET TRANSACTION READ WRITE")
                    try connection.execute(statement)
                }
            }
            #expect(error?.sqlState == "42501", "\(statement): \(String(describing: error))")
        }
        let check = try Connection(conninfo: fixture.conninfo)
        defer { check.close() }
        #expect(
            try check.execute("SELECT time_zone FROM users WHERE handle = 'anna'").single().string(0) == "Europe/Berlin"
        )
        #expect(try check.execute("SELECT count(*) FROM summaries").single().int(0) == 18)
    }

    /// A reader whose sessions no longer start read-only, by its own doing.
    enum ReaderDefaultOff: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case readOnlyRole =
            "sleepledger_readonly, after it ran ALTER ROLE sleepledger_readonly IN DATABASE ... SET default_transaction_read_only = off"
        case memberLoginRole =
            "an analyst's login role IN ROLE sleepledger_readonly (settings are not inherited), after it set its own default off"
        var testDescription: String { rawValue }
    }

    /// Writes, with the SQLSTATE each fails with in the admin tool's read-only session
    /// (25006 read_only_sql_transaction, checked before privileges for all but `nextval`,
    /// whose privilege check comes first) and what the role's privileges alone answer in
    /// a read-write transaction (42501 insufficient_privilege; `nil`: allowed).
    static let writes: [(statement: String, readOnlyRefusal: String, privilegeRefusal: String?)] = [
        ("INSERT INTO rollup_state (user_id) VALUES (999999)", "25006", "42501"),
        ("UPDATE users SET time_zone = 'UTC' WHERE handle = 'anna'", "25006", "42501"),
        ("DELETE FROM summaries", "25006", "42501"),
        ("CREATE TABLE intruder (id int)", "25006", "42501"),
        ("SELECT nextval('users_id_seq')", "42501", "42501"),
        // A role may change its own settings: only the read-only transaction stops this.
        ("ALTER ROLE CURRENT_USER SET default_transaction_read_only = on", "25006", nil),
    ]

    @Test(
        """
        a reader may turn its own read-only default off; the admin tool's session still writes nothing (25006), \
        the role's privileges refuse writes anyway (42501), and its commands answer as before
        """, arguments: ReaderDefaultOff.allCases)
    func readerDefaultOff(_ reader: ReaderDefaultOff) throws {
        // A database of its own: the role's setting changes in it.
        let fixture = try AdminFixture.make()
        let owner = try Connection(conninfo: fixture.conninfo)
        defer { owner.close() }
        let databaseName = try #require(try owner.execute("SELECT current_database()").single().string(0))
        let analyst = "sleepledger_analyst_\(UInt32.random(in: 0...UInt32.max))"
        let role = reader == .readOnlyRole ? DatabaseRoles.readOnly : analyst
        if reader == .memberLoginRole {
            try owner.execute("CREATE ROLE \(role) LOGIN IN ROLE \(DatabaseRoles.readOnly)")
        }
        defer { if reader == .memberLoginRole { _ = try? owner.execute("DROP ROLE IF EXISTS \(role)") } }
        let conninfo = try ConnectionString.settingParameter("user", to: role, in: fixture.conninfo)

        // The role turns its own default off: refused inside a read-only transaction,
        // allowed once the session made itself read-write.
        let alter =
            reader == .readOnlyRole
            ? "ALTER ROLE \(role) IN DATABASE \(try owner.quoteIdentifier(databaseName)) SET default_transaction_read_only = off"
            : "ALTER ROLE \(role) SET default_transaction_read_only = off"
        let changer = try Connection(conninfo: conninfo)
        if reader == .readOnlyRole {
            let refused = #expect(throws: PostgresError.self) { try changer.execute(alter) }
            #expect(refused?.sqlState == "25006")
        }
        try changer.execute("SET default_transaction_read_only = off")
        try changer.execute(alter)
        changer.close()

        // A new session of the role starts read-write; the privileges still refuse writes.
        let plain = try Connection(conninfo: conninfo)
        defer { plain.close() }
        #expect(try plain.execute("SHOW default_transaction_read_only").single().string(0) == "off")
        for (statement, _, privilegeRefusal) in Self.writes {
            guard let privilegeRefusal else { continue }
            let error = #expect(throws: PostgresError.self) {
                try plain.transaction { connection in try connection.execute(statement) }
            }
            #expect(error?.sqlState == privilegeRefusal, "\(statement)")
        }

        // The admin tool's session is read-only by its own doing, on every path.
        var environment = fixture.environment
        environment["SLEEPLEDGER_ADMIN_DATABASE_URL"] = conninfo
        let configuration = try Configuration(environment: environment, isTerminal: false)
        let session = try configuration.database.openReadOnly(readOnlyURL: configuration.readOnlyURL)
        defer { session.close() }
        #expect(session.isReadOnly)
        let connection = session.connection
        #expect(try connection.execute("SELECT current_user").single().string(0) == role)
        #expect(try connection.execute("SHOW transaction_read_only").single().string(0) == "on")
        let annaID = try #require(try owner.execute("SELECT id FROM users WHERE handle = 'anna'").single().int64(0))
        let paths: [(name: String, run: (() throws -> Void) throws -> Void)] = [
            ("outside a transaction", { try $0() }),
            ("in a plain BEGIN", { body in try connection.transaction { _ in try body() } }),
            ("in the admin tool's transaction", { body in try session.readOnly { try body() } }),
            ("as a user", { body in try session.asUser(annaID) { try body() } }),
        ]
        for (statement, readOnlyRefusal, _) in Self.writes {
            for path in paths {
                // The SQLSTATE the statement itself failed with (a path may wrap the error).
                var sqlState: String?
                do {
                    try path.run {
                        do {
                            try connection.execute(statement)
                        } catch let error as PostgresError {
                            sqlState = error.sqlState
                            throw error
                        }
                    }
                } catch {}
                #expect(sqlState == readOnlyRefusal, "\(statement) \(path.name)")
            }
        }
        #expect(!connection.isInTransaction)

        // Nothing changed, and the commands answer exactly as on the shared fixture.
        #expect(
            try owner.execute("SELECT time_zone FROM users WHERE handle = 'anna'").single().string(0)
                == "Europe/Berlin")
        #expect(try owner.execute("SELECT count(*) FROM summaries").single().int(0) == 18)
        #expect(try owner.execute("SELECT to_regclass('intruder') IS NULL").single().bool(0) == true)
        let shared = try AdminFixture.shared()
        for arguments in [["summary", "anna", "--format", "json"], ["users", "--format", "csv"]] {
            let (code, captured) = runAdmin(arguments, environment: environment)
            #expect(code == .success, "\(captured.errorText)")
            let (_, expected) = runAdmin(arguments, environment: shared.environment)
            #expect(captured.printed == expected.printed, "\(arguments)")
        }
    }

    @Test("a schema with pending migrations is refused (exit 69), naming sleepledger migrate")
    func pendingSchema() throws {
        let database = try TestDatabase.fresh()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "admin-migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let all = try FileManager.default.contentsOfDirectory(atPath: TestDatabase.migrationsFolder).filter {
            $0.hasSuffix(".sql")
        }
        let firstFile = try #require(all.sorted().first)
        try FileManager.default.copyItem(
            atPath: TestDatabase.migrationsFolder + "/" + firstFile,
            toPath: folder.appendingPathComponent(firstFile).path)
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let old = try Migrator(folder: folder.path)
        try old.migrate(on: connection)
        try TestDatabase.applyRoles(on: connection)

        let (code, captured) = runAdmin(
            ["users"],
            environment: ["DATABASE_URL": database.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder])
        #expect(code == .unavailable)
        #expect(captured.errorText.hasPrefix("sleepledger-admin: "))
        #expect(captured.errorText.contains("sleepledger migrate"))
        #expect(captured.errorText.split(separator: "\n").count == 1)
        #expect(captured.printed.isEmpty)
    }

    @Test("a schema newer than the tool is refused (exit 69)")
    func newerSchema() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        try connection.execute("INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')")
        let (code, captured) = runAdmin(
            ["summary", "anna"],
            environment: ["DATABASE_URL": database.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder])
        #expect(code == .unavailable)
        #expect(captured.errorText.contains("newer than this SleepLedger"))
        #expect(captured.errorText.split(separator: "\n").count == 1)
    }

    @Test("on the embedded default it neither starts nor creates the cluster: exit 69 naming sleepledger db start")
    func embeddedNotRunning() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("admin-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let (code, captured) = runAdmin(
            ["users"],
            environment: ["SLEEPLEDGER_HOME": home.path, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder])
        #expect(code == .unavailable)
        #expect(
            captured.errorText
                == "sleepledger-admin: the embedded database at \(home.path) is not running; start it with `sleepledger db start`\n"
        )
        #expect(!FileManager.default.fileExists(atPath: home.path))
    }

    @Test("on the embedded default it connects as sleepledger_readonly over the socket, and cannot write")
    func embeddedReadOnlyRole() throws {
        let cluster = try PrivateCluster("admin-embedded")
        defer { cluster.stop() }
        let (environment, database) = (cluster.environment, cluster.database)
        let writer = try database.open(access: .writes)
        defer { writer.close() }
        try UserService(session: writer).add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)

        let session = try database.openReadOnly(readOnlyURL: nil)
        defer { session.close() }
        let connection = session.connection
        #expect(try connection.execute("SELECT current_user").single().string(0) == "sleepledger_readonly")
        // Over the Unix socket: no server address.
        #expect(try connection.execute("SELECT inet_server_addr() IS NULL").single().bool(0) == true)
        #expect(try UserService(session: session).list().map(\.handle) == ["anna"])
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.execute("SET TRANSACTION READ WRITE")
                try connection.execute("DELETE FROM users")
            }
        }
        #expect(error?.sqlState == "42501")
        let (code, captured) = runAdmin(["users", "--format", "csv"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("anna,Europe/Berlin"))
    }
}
