import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import Testing

/// The server's role sees and writes only the rows of the user its transaction names,
/// nothing when none is named, and cannot write a row for someone else.
@Suite("Row-level security")
struct RowLevelSecurityTests {
    /// Every table holding a person's data, with its user key column.
    static let tables = [
        ("users", "id"), ("imports", "user_id"), ("sleep_samples", "user_id"), ("rollup_state", "user_id"),
        ("nights", "user_id"), ("naps", "user_id"), ("summaries", "user_id"), ("api_tokens", "user_id"),
        ("user_passwords", "user_id"), ("web_sessions", "user_id"), ("import_jobs", "user_id"),
        ("import_counters", "user_id"), ("api_token_owners", "user_id"), ("web_session_owners", "user_id"),
    ]

    /// A migrated database with roles, two users and a row of theirs in every table.
    static func twoUsers() throws -> (connection: Connection, anna: User, ben: User) {
        let connection = try Connection(conninfo: try TestDatabase.migrated().conninfo)
        let users = UserStore(connection: connection)
        let anna = try users.add(handle: "anna", timeZone: "Europe/Berlin")
        let ben = try users.add(handle: "ben", timeZone: "UTC")
        for user in [anna, ben] {
            try connection.execute(
                "INSERT INTO imports (user_id, file_name, size_bytes, sha256, kind) VALUES ($1, 'export.zip', 1, $2, 'zip')",
                [.int64(user.id), .text(String(repeating: "ab", count: 32))])
            try connection.execute(
                """
                INSERT INTO sleep_samples (user_id, source, start_at, end_at, stage)
                VALUES ($1, 'Watch', '2024-03-01 23:00+00', '2024-03-02 07:00+00', 'core')
                """, [.int64(user.id)])
            var night = NightStoreTests.awkwardNight
            night.wakeDay = LocalDate(year: 2025, month: 3, day: 30)
            try NightStore(connection: connection).replace(
                userID: user.id, from: nil, nights: [night],
                naps: [
                    Nap(
                        wakeDay: night.wakeDay, timeZoneIdentifier: "UTC", source: "Watch", start: night.wake + 3600,
                        end: night.wake + 5400, asleepSeconds: 1800)
                ])
            try SummaryStore(connection: connection).replace(
                userID: user.id,
                summaries: SummaryBuilder(nights: [night]).summaries(asOf: night.wakeDay),
                computedAt: 1_709_400_000)
            try TokenStore(connection: connection).add(
                userID: user.id, id: user.id * 1000, name: "phone", scope: .full,
                secretSHA256: [UInt8](repeating: 7, count: 32))
            try PasswordStore(connection: connection).set(
                userID: user.id, passwordHash: "$argon2id$v=19$m=8,t=1,p=1$\(user.handle)$hash", at: 1_709_400_000)
            try WebSessionStore(connection: connection).add(
                userID: user.id, secretSHA256: sessionHash(user), at: 1_709_400_000, expiresAt: 1_709_500_000)
            // A job, and with it the person's import counter.
            _ = try ImportJobStore(connection: connection).enqueue(
                userID: user.id, fileName: "export.zip", contentType: nil, sizeBytes: 1,
                sha256: String(repeating: "cd", count: 32), spoolHost: "here", spoolPath: "/spool/\(user.id)")
        }
        return (connection, anna, ben)
    }

    /// The stored session hash of `user`'s session in ``twoUsers()``.
    static func sessionHash(_ user: User) -> [UInt8] { [UInt8](repeating: UInt8(user.id % 200), count: 32) }

    /// Runs `body` as the server's role inside a transaction naming `userID` (none: `nil`).
    static func asServer<T>(_ connection: Connection, userID: Int64?, _ body: (Connection) throws -> T) throws -> T {
        try connection.transaction { connection in
            try connection.execute("SET LOCAL ROLE \(DatabaseRoles.server)")
            if let userID {
                try connection.execute(DatabaseRoles.settingStatement(userID: userID))
            }
            return try body(connection)
        }
    }

    @Test("an unfiltered SELECT under the server's role returns only the named user's rows", arguments: tables)
    func onlyOwnRows(table: String, key: String) throws {
        let (connection, anna, ben) = try Self.twoUsers()
        defer { connection.close() }
        let all = try connection.execute("SELECT count(DISTINCT \(key)) FROM \(table)").single().int(0)
        #expect(all == 2)
        for user in [anna, ben] {
            let seen = try Self.asServer(connection, userID: user.id) { connection in
                try connection.execute("SELECT DISTINCT \(key) FROM \(table)").rows.map { try $0.int64(0) }
            }
            #expect(seen == [user.id])
        }
    }

    @Test("with no user named, or after the naming transaction ended, the server sees nothing", arguments: tables)
    func nothingWithoutAUser(table: String, key: String) throws {
        let (connection, anna, _) = try Self.twoUsers()
        defer { connection.close() }
        #expect(try Self.asServer(connection, userID: nil) { try $0.execute("SELECT * FROM \(table)").rows.count } == 0)
        _ = try Self.asServer(connection, userID: anna.id) { try $0.execute("SELECT 1 FROM \(table)") }
        // The setting is now '' (not NULL) on this session: still nothing.
        #expect(
            try Self.asServer(connection, userID: nil) { connection in
                try connection.execute("SELECT current_setting($1, true)", [.text(DatabaseRoles.currentUserSetting)])
                    .single().string(0)
            } == "")
        #expect(try Self.asServer(connection, userID: nil) { try $0.execute("SELECT * FROM \(table)").rows.count } == 0)
    }

    @Test("the server numbers a job from the named person's counter only: another's counter is refused")
    func importNumbersOfOwnCounter() throws {
        let (connection, anna, ben) = try Self.twoUsers()
        defer { connection.close() }
        let jobs = ImportJobStore(connection: connection)
        func enqueue(for user: User) throws -> ImportJobStore.Job? {
            try jobs.enqueue(
                userID: user.id, fileName: "again.zip", contentType: nil, sizeBytes: 1,
                sha256: String(repeating: "ef", count: 32), spoolHost: "here", spoolPath: "/spool/again")
        }
        let own = try Self.asServer(connection, userID: anna.id) { _ in try enqueue(for: anna) }
        #expect(own?.number == 2)
        let others = #expect(throws: PostgresError.self) {
            try Self.asServer(connection, userID: anna.id) { _ in try enqueue(for: ben) }
        }
        #expect(others?.sqlState == "42501")
        #expect(
            try connection.execute("SELECT last_number FROM import_counters WHERE user_id = $1", [.int64(ben.id)])
                .single().int64(0) == 1)
    }

    @Test("writing a row for another user fails; changing or deleting theirs touches nothing")
    func noWritesForOthers() throws {
        let (connection, anna, ben) = try Self.twoUsers()
        defer { connection.close() }
        let insert = #expect(throws: PostgresError.self) {
            try Self.asServer(connection, userID: anna.id) { connection in
                try connection.execute(
                    """
                    INSERT INTO sleep_samples (user_id, source, start_at, end_at, stage)
                    VALUES ($1, 'Intruder', '2024-03-03 23:00+00', '2024-03-04 07:00+00', 'core')
                    """, [.int64(ben.id)])
            }
        }
        #expect(insert?.sqlState == "42501")
        let moved = #expect(throws: PostgresError.self) {
            try Self.asServer(connection, userID: anna.id) { connection in
                try connection.execute("UPDATE imports SET user_id = $1", [.int64(ben.id)])
            }
        }
        #expect(moved?.sqlState == "42501")
        let changed = try Self.asServer(connection, userID: anna.id) { connection in
            try connection.execute("UPDATE users SET time_zone = 'Asia/Tokyo' WHERE id = $1", [.int64(ben.id)])
                .affectedRows
                + connection.execute("DELETE FROM nights WHERE user_id = $1", [.int64(ben.id)]).affectedRows
        }
        #expect(changed == 0)
        #expect(
            try connection.execute("SELECT time_zone FROM users WHERE id = $1", [.int64(ben.id)]).single().string(0)
                == "UTC")
        #expect(try connection.execute("SELECT count(*) FROM nights").single().int(0) == 2)
    }

    @Test("token credentials are found before the user is known, and only those")
    func tokenLookUp() throws {
        let (connection, _, ben) = try Self.twoUsers()
        defer { connection.close() }
        let credentials = try Self.asServer(connection, userID: nil) { connection in
            try TokenStore(connection: connection).credentials(id: ben.id * 1000)
        }
        #expect(credentials.map(\.userID) == [ben.id])
        #expect(
            try Self.asServer(connection, userID: nil) { try TokenStore(connection: $0).credentials(id: 5) }.isEmpty)
        // The function hands out the hash and owner, not the table.
        #expect(
            try Self.asServer(connection, userID: nil) { try $0.execute("SELECT * FROM api_tokens").rows.count } == 0)
    }

    @Test("a password and a session are found before the user is known, and only those")
    func signInLookUps() throws {
        let (connection, anna, ben) = try Self.twoUsers()
        defer { connection.close() }
        let credential = try Self.asServer(connection, userID: nil) { connection in
            try PasswordStore(connection: connection).credential(handleKey: UserHandle.key("BEN"))
        }
        #expect(credential?.userID == ben.id)
        #expect(credential?.passwordHash.hasPrefix("$argon2id$v=19$m=8,t=1,p=1$ben$") == true)
        #expect(
            try Self.asServer(connection, userID: nil) {
                try PasswordStore(connection: $0).credential(handleKey: "nobody")
            } == nil)
        let found = try Self.asServer(connection, userID: nil) { connection in
            try WebSessionStore(connection: connection).session(secretSHA256: Self.sessionHash(anna))
        }
        #expect(found?.userID == anna.id)
        #expect(found?.lastUsedAt == 1_709_400_000 && found?.expiresAt == 1_709_500_000)
        #expect(
            try Self.asServer(connection, userID: nil) {
                try WebSessionStore(connection: $0).session(secretSHA256: [UInt8](repeating: 9, count: 32))
            } == nil)
        // The functions hand out those columns, not the tables.
        for table in ["user_passwords", "web_sessions"] {
            #expect(
                try Self.asServer(connection, userID: nil) { try $0.execute("SELECT * FROM \(table)").rows.count } == 0)
        }
        // Ending another person's sessions touches nothing.
        let ended = try Self.asServer(connection, userID: anna.id) {
            try WebSessionStore(connection: $0).removeAll(userID: ben.id)
        }
        #expect(ended == 0)
    }

    @Test("a token's and a session's owner rows come and go with them, and only the person's own")
    func credentialOwners() throws {
        let (connection, anna, ben) = try Self.twoUsers()
        defer { connection.close() }
        func owners(_ table: String) throws -> [Int64] {
            try connection.execute("SELECT user_id FROM \(table) ORDER BY user_id").rows.compactMap { try $0.int64(0) }
        }
        #expect(try owners("api_token_owners") == [anna.id, ben.id])
        #expect(try owners("web_session_owners") == [anna.id, ben.id])
        let second = [UInt8](repeating: 42, count: 32)
        try Self.asServer(connection, userID: anna.id) { connection in
            let sessions = WebSessionStore(connection: connection)
            try sessions.add(userID: anna.id, secretSHA256: second, at: 1_709_400_000, expiresAt: 1_709_500_000)
            #expect(try sessions.remove(userID: anna.id, secretSHA256: Self.sessionHash(anna)))
        }
        let annas = try connection.execute(
            "SELECT secret_sha256 FROM web_session_owners WHERE user_id = $1", [.int64(anna.id)]
        ).rows.compactMap { try $0.bytes(0).map(Array.init) }
        #expect(annas == [second])
        // Ending every session of Anna's leaves Ben's owner row; a session of Ben's cannot be
        // recorded as Anna's.
        _ = try Self.asServer(connection, userID: anna.id) {
            try WebSessionStore(connection: $0).removeAll(userID: anna.id)
        }
        #expect(try owners("web_session_owners") == [ben.id])
        let foreign = #expect(throws: PostgresError.self) {
            try Self.asServer(connection, userID: anna.id) {
                try $0.execute(
                    "INSERT INTO web_session_owners (secret_sha256, user_id) VALUES ($1, $2)",
                    [.bytes(Data(second)), .int64(ben.id)])
            }
        }
        #expect(foreign?.sqlState == "42501")
        // The definer look-ups find the owner through these rows: without one, nothing.
        try connection.execute("DELETE FROM api_token_owners WHERE user_id = $1", [.int64(ben.id)])
        #expect(try TokenStore(connection: connection).credentials(id: ben.id * 1000).isEmpty)
        #expect(try TokenStore(connection: connection).credentials(id: anna.id * 1000).map(\.userID) == [anna.id])
        try connection.execute("DELETE FROM web_session_owners WHERE user_id = $1", [.int64(ben.id)])
        #expect(try WebSessionStore(connection: connection).session(secretSHA256: Self.sessionHash(ben)) == nil)
    }

    @Test("the read-only role cannot read password hashes, and reads the rest as before")
    func readOnlyWithoutPasswords() throws {
        let (connection, _, _) = try Self.twoUsers()
        defer { connection.close() }
        try connection.execute("SET ROLE sleepledger_readonly")
        let refused = #expect(throws: PostgresError.self) {
            try connection.execute("SELECT password_hash FROM user_passwords")
        }
        #expect(refused?.sqlState == "42501")
        try connection.execute("RESET ROLE")
        try connection.execute("SET ROLE sleepledger_readonly")
        #expect(try connection.execute("SELECT count(*) FROM web_sessions").single().int(0) == 2)
        try connection.execute("RESET ROLE")
    }

    @Test("the server's role is no superuser, has no BYPASSRLS and owns nothing")
    func serverRoleIsPlain() throws {
        let connection = try Connection(conninfo: try TestDatabase.migrated().conninfo)
        defer { connection.close() }
        let role = try connection.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1", [.text(DatabaseRoles.server)]
        ).single()
        #expect(try role.bool(0) == false)
        #expect(try role.bool(1) == false)
        let owned = try connection.execute(
            """
            SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = $1
            """, [.text(DatabaseRoles.server)]
        ).single().int(0)
        #expect(owned == 0)
    }
}
