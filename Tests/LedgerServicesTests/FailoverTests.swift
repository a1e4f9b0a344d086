import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing

/// Issue 23, items 1 and 2: libpq's multi-host connection strings wherever SleepLedger takes
/// one (with the role rewrite, and no password in any message), and a session pool that
/// survives a lost database (a failover): the session is dropped, an idempotent call runs
/// once more on a new one, anything else is ``ServiceError/Kind/unavailable``.
@Suite("Multi-host connection strings and failover")
struct FailoverTests {
    static let password = MalformedConnectionStrings.password
    /// A socket folder where no server listens: the first host of every multi-host string.
    static let deadHost = "/nonexistent-sleepledger-host"

    /// Where the fixture's server listens (its socket folder or address, and port) and its superuser.
    static func endpoint(_ fixture: ServiceFixture) throws -> (host: String, port: String, user: String) {
        let row = try #require(
            try fixture.session.connection.execute(
                """
                SELECT coalesce(
                        host(inet_server_addr()),
                        btrim(split_part(current_setting('unix_socket_directories'), ',', 1), ' "')),
                    current_setting('port'), current_user
                """
            ).first)
        return (try #require(try row.string(0)), try #require(try row.string(1)), try #require(try row.string(2)))
    }

    /// The two forms libpq takes, for `user` on the fixture's database behind a dead host,
    /// each with a password (ignored by a server that does not ask for one).
    static func multiHost(_ fixture: ServiceFixture, user: String? = nil, attributes: String = "read-write") throws
        -> [(form: String, url: String)]
    {
        let (host, port, superuser) = try endpoint(fixture)
        let user = user ?? superuser
        let database = try #require(
            try fixture.session.connection.execute("SELECT current_database()").first?.string(0))
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._"))) ?? text
        }
        return [
            (
                "key=value",
                "host=\(deadHost),\(host) port=\(port),\(port) user=\(user) password=\(password) dbname=\(database) "
                    + "target_session_attrs=\(attributes)"
            ),
            (
                "URL",
                "postgresql://\(user):\(password)@\(encoded(deadHost)):\(port),\(encoded(host)):\(port)/\(database)"
                    + "?target_session_attrs=\(attributes)"
            ),
        ]
    }

    static func currentUser(_ session: LedgerSession) throws -> String? {
        try session.connection.execute("SELECT current_user").first?.string(0)
    }

    @Test("DATABASE_URL, SLEEPLEDGER_SERVER_DATABASE_URL and SLEEPLEDGER_ADMIN_DATABASE_URL take both multi-host forms")
    func multiHostStrings() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let superuser = try Self.endpoint(fixture).user
        let servers = try Self.multiHost(fixture, user: DatabaseRoles.server)
        // An admin URL that may name a standby (a read-only role's sessions fail read-write).
        let readers = try Self.multiHost(fixture, user: DatabaseRoles.readOnly, attributes: "prefer-standby")
        for (index, (form, url)) in try Self.multiHost(fixture).enumerated() {
            let database = LedgerDatabase(
                configuration: try DatabaseConfiguration(environment: ["DATABASE_URL": url]),
                migrationsFolder: TestDatabase.migrationsFolder)
            // DATABASE_URL as it is, and with the user rewritten to each role.
            let sessions = [
                (superuser, try database.open(access: .writes)),
                (DatabaseRoles.server, try database.openAsServer(serverURL: nil)),
                (DatabaseRoles.readOnly, try database.openReadOnly(readOnlyURL: nil)),
                // SLEEPLEDGER_SERVER_DATABASE_URL and SLEEPLEDGER_ADMIN_DATABASE_URL, verbatim.
                (DatabaseRoles.server, try database.openAsServer(serverURL: servers[index].url)),
                (DatabaseRoles.readOnly, try database.openReadOnly(readOnlyURL: readers[index].url)),
            ]
            for (role, session) in sessions {
                #expect(try Self.currentUser(session) == role, "\(form)")
                session.close()
            }
            // The rewrite keeps both hosts and ports and the session attributes (the read-only
            // role's read-write becomes primary: its sessions are read-only by design).
            let reader = try #require(try database.openReadOnly(readOnlyURL: nil))
            #expect(try reader.connection.execute("SELECT pg_is_in_recovery()").first?.bool(0) == false)
            reader.close()
            let rewritten = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: url)
            let redacted = ConnectionString.redacted(rewritten)
            #expect(redacted.contains("host=\(Self.deadHost),"), "\(form): \(redacted)")
            #expect(redacted.contains("target_session_attrs=read-write"), "\(form): \(redacted)")
            #expect(redacted.contains("user=\(DatabaseRoles.server)"), "\(form): \(redacted)")
            for text in [redacted, database.description, "\(database.configuration)", String(reflecting: database)] {
                #expect(!text.contains(Self.password), "\(form): \(text)")
            }
        }
    }

    @Test("no host reachable: unavailable, a lost database, and no password in any message")
    func noHostReachable() throws {
        let urls = [
            "host=\(Self.deadHost),\(Self.deadHost)-2 port=5432,5433 user=anna password=\(Self.password) dbname=d",
            "postgresql://anna:\(Self.password)@%2Fnonexistent-a:5432,%2Fnonexistent-b:5433/d?target_session_attrs=any",
        ]
        for url in urls {
            let database = LedgerDatabase(
                configuration: DatabaseConfiguration(source: .url(url)), migrationsFolder: TestDatabase.migrationsFolder
            )
            for open in [
                { try database.open(access: .writes).close() }, { try database.openAsServer(serverURL: nil).close() },
                { try database.openReadOnly(readOnlyURL: url).close() },
            ] as [() throws -> Void] {
                let error = #expect(throws: ServiceError.self) { try open() }
                #expect(error?.kind == .unavailable)
                #expect(error?.isDatabaseLost == true)
                for text in [error?.message ?? "", error?.debugDetail ?? "", String(reflecting: error)] {
                    #expect(!text.contains(Self.password), "\(text)")
                }
            }
        }
    }

    /// Which database failures are a lost server (a failover), by SQLSTATE.
    @Test(
        "a lost connection, 08xxx, 57P01-57P03 and 25006 are a lost database; other failures are not",
        arguments: [
            (PostgresError.Kind.connectionFailed, nil as String?, true), (.queryFailed, "08006", true),
            (.queryFailed, "08003", true), (.queryFailed, "57P01", true), (.queryFailed, "57P02", true),
            (.queryFailed, "57P03", true), (.queryFailed, "25006", true), (.queryFailed, "40001", false),
            (.queryFailed, "57014", false), (.queryFailed, "55P03", false), (.alreadyExists, "23505", false),
            (.queryFailed, nil, false),
        ])
    func classification(_ kind: PostgresError.Kind, _ sqlState: String?, _ lost: Bool) {
        let error = PostgresError(kind, "failed", sqlState: sqlState)
        #expect(error.isServerLost == lost)
        #expect(ServiceError(error).isDatabaseLost == lost)
        #expect(SessionPool.isLost(error) == lost)
        if lost { #expect(ServiceError(error).kind == .unavailable) }
        let stored = StoreError(.invalidUse, "failed", sqlState: sqlState)
        #expect(ServiceError(stored).isDatabaseLost == (lost && sqlState != nil))
    }

    /// Ends every session of the fixture's database that the server's role holds, as a
    /// restart of the primary does (SQLSTATE 57P01 to each).
    static func terminateServerSessions(_ fixture: ServiceFixture) throws {
        try fixture.session.connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND datname = current_database()",
            [.text(DatabaseRoles.server)])
    }

    static func pool(_ fixture: ServiceFixture) throws -> SessionPool {
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        let database = fixture.database
        return SessionPool(capacity: 3, reconnectSeconds: 3) { try database.openAsServer(serverURL: serverURL) }
    }

    @Test("a retried call whose sessions were ended runs once more on a new session; the idle ones are dropped")
    func retriedCall() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let pool = try Self.pool(fixture)
        defer { pool.close() }
        // Two sessions open, both idle.
        try pool.withSession { _ in try pool.withSession { _ in } }
        #expect(pool.usage.open == 2)
        try Self.terminateServerSessions(fixture)
        var runs = 0
        let user = try pool.withRetriedSession { session in
            runs += 1
            return try Self.currentUser(session)
        }
        #expect(user == DatabaseRoles.server)
        #expect(runs == 2)
        #expect(pool.losses.lost == 1)
        #expect(pool.losses.reconnected == 1)
        // The other idle session reached the same server: dropped, not handed out broken.
        #expect(pool.usage.open == 1)
        let next = try pool.withSession { session in try Self.currentUser(session) }
        #expect(next == DatabaseRoles.server)
    }

    @Test("a call that is not retried fails as unavailable and a lost database; the next call gets a new session")
    func unretriedCall() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let pool = try Self.pool(fixture)
        defer { pool.close() }
        try pool.withSession { _ in }
        try Self.terminateServerSessions(fixture)
        let error = #expect(throws: ServiceError.self) {
            try pool.withSession { session in
                try ServiceError.wrapping { try session.connection.execute("SELECT 1") }
            }
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.isDatabaseLost == true)
        #expect(pool.usage.open == 0)
        let next = try pool.withSession { session in try Self.currentUser(session) }
        #expect(next == DatabaseRoles.server)
    }

    @Test("a write refused as on a standby (25006) drops the session instead of keeping it")
    func readOnlyNode() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let pool = try Self.pool(fixture)
        defer { pool.close() }
        let error = #expect(throws: ServiceError.self) {
            try pool.withSession { session in
                try ServiceError.wrapping {
                    // What a standby answers to every write.
                    try session.connection.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                    try session.connection.execute("UPDATE users SET time_zone = time_zone WHERE false")
                }
            }
        }
        #expect(error?.isDatabaseLost == true)
        #expect(error?.kind == .unavailable)
        #expect(pool.usage.open == 0)
    }

    @Test("a job resumed under its claim after a lost session is imported once, and not again once it ended")
    func resumedJob() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let queue = try ImportQueueTests.queueOneNight(fixture, session, annaID)
        // The first run claimed the job and lost its session before it could import.
        let claim = try #require(
            try ImportJobStore(connection: session.connection).claim(host: "here", anyHost: false, leaseSeconds: 60))
        let job = try #require(try queue.runNext(anyHost: false, options: .init(), resuming: claim))
        #expect(job.state == .done)
        #expect(job.attempts == 1)
        // Its commit landed: resuming again (as after a loss right after the commit) does not import twice.
        let again = try #require(try queue.runNext(anyHost: false, options: .init(), resuming: claim))
        #expect(again.id == job.id)
        #expect(again.state == .done)
        let imports = try fixture.session.connection.execute("SELECT count(*) FROM imports").first?.int(0)
        #expect(imports == 1)
    }

    @Test("a rollup whose connection is ended before its commit connects again and does that user once more")
    func rollupAfterLostConnection() throws {
        let fixture = try RollupFixture()
        defer { fixture.connection.close() }
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(RollupTests.days((1, 1), (1, 31)), userID: anna.id, zone: "Europe/Berlin")
        let conninfo = fixture.conninfo
        let commits = Mutex(0)
        let report = try fixture.runner(beforeCommit: { _ in
            guard
                commits.withLock({ count in
                    count += 1
                    return count
                }) == 1
            else { return }
            // The database goes away under the rollup's connection (as the primary does in a failover).
            let other = try Connection(conninfo: conninfo)
            defer { other.close() }
            try other.execute(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                    AND query NOT LIKE '%pg_terminate_backend%' AND state <> 'idle'
                """)
        }).run(now: RollupTests.now)
        #expect(commits.withLock { $0 } == 2)
        #expect(report.usersDone == 1)
        #expect(report.usersFailed == 0)
        #expect(try fixture.state(anna.id).date("dirty_from") == nil)
    }
}
