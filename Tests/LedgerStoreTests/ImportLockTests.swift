import Foundation
import LedgerTestSupport
import PostgresClient
import SleepCore
import Synchronization
import Testing

@testable import LedgerStore

@Suite("Import lock")
struct ImportLockTests {
    /// A migrated database with the users anna and ben.
    static func setUp() throws -> (conninfo: String, connection: Connection, anna: User, ben: User) {
        let conninfo = try TestDatabase.migrated().conninfo
        let connection = try Connection(conninfo: conninfo)
        let users = UserStore(connection: connection)
        return (
            conninfo, connection, try users.add(handle: "anna", timeZone: "Europe/Berlin"),
            try users.add(handle: "ben", timeZone: "UTC")
        )
    }

    /// `count` ten-minute samples ending before 2024-03-01T06:00:00Z.
    static func samples(_ count: Int, source: String = "Watch") -> [SleepSample] {
        (0..<count).map { index in
            let end = SampleLoaderTests.morning - Int64(index) * 900
            return SleepSample(source: source, start: end - 600, end: end, stage: .core)
        }
    }

    /// One import of `samples` on its own connection, waiting at most `lockWaitSeconds`.
    static func load(
        _ conninfo: String, userID: Int64, samples: [SleepSample], lockWaitSeconds: Double,
        onLockWait: @escaping @Sendable (ImportLockHolder?) -> Void = { _ in }
    ) throws -> ImportOutcome {
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        return try SampleLoader(connection: connection, lockWaitSeconds: lockWaitSeconds).load(
            userID: userID, userTimeZone: nil, audit: SampleLoaderTests.audit(samples.count), onLockWait: onLockWait
        ) { sink in
            for sample in samples { try sink.append(sample) }
            return SampleLoaderTests.audit(samples.count)
        }
    }

    static func count(_ connection: Connection, _ sql: String) throws -> Int {
        try connection.execute(sql).single().int(0) ?? -1
    }

    @Test(
        "the lock row comes with the user, from migration 0008 for earlier users, again when missing, and goes with the user"
    )
    func lockRows() throws {
        let database = try TestDatabase.fresh()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version < 8 }).migrate(on: connection)
        try connection.execute("INSERT INTO users (handle, handle_key, time_zone) VALUES ('early', 'early', 'UTC')")
        _ = try all.migrate(on: connection)
        #expect(try Self.count(connection, "SELECT count(*) FROM import_locks") == 1)

        let anna = try UserStore(connection: connection).add(handle: "anna", timeZone: "UTC")
        #expect(
            try Self.count(connection, "SELECT count(*) FROM import_locks WHERE user_id = \(anna.id)") == 1)
        try connection.execute("DELETE FROM import_locks WHERE user_id = $1", [.int64(anna.id)])
        let isLocked = try connection.transaction { connection in
            try ImportLock(connection: connection).acquire(userID: anna.id, waitSeconds: 1, onWait: { _ in })
        }
        #expect(isLocked)
        #expect(
            try Self.count(connection, "SELECT count(*) FROM import_locks WHERE user_id = \(anna.id)") == 1)
        let isUnknownLocked = try connection.transaction { connection in
            try ImportLock(connection: connection).acquire(userID: anna.id + 1000, waitSeconds: 1, onWait: { _ in })
        }
        #expect(!isUnknownLocked)
        try UserStore(connection: connection).remove(handle: "anna")
        #expect(try Self.count(connection, "SELECT count(*) FROM import_locks") == 1)
    }

    @Test(
        "the read-only role cannot lock a user's import lock row, in any mode",
        arguments: [
            "SELECT user_id FROM import_locks FOR UPDATE", "SELECT user_id FROM import_locks FOR NO KEY UPDATE",
            "SELECT user_id FROM import_locks FOR SHARE", "SELECT user_id FROM import_locks FOR KEY SHARE",
            "LOCK TABLE import_locks IN ROW SHARE MODE", "LOCK TABLE import_locks IN EXCLUSIVE MODE",
            // The advisory lock imports took before migration 0008 (class 0x534C494D, a user
            // id): roles.sql takes advisory locks away from the read-only role.
            "SELECT pg_advisory_lock(1397508429, 1)", "SELECT pg_advisory_xact_lock(1397508429, 1)",
        ])
    func readOnlyCannotLock(statement: String) throws {
        let (conninfo, setup, _, _) = try Self.setUp()
        defer { setup.close() }
        let readOnly = try Connection(
            conninfo: ConnectionString.settingParameter("user", to: DatabaseRoles.readOnly, in: conninfo))
        defer { readOnly.close() }
        let error = #expect(throws: PostgresError.self) {
            try readOnly.transaction { connection in
                // Not the session's read-only default but a missing privilege stops it.
                try connection.execute("SET TRANSACTION READ WRITE")
                try connection.execute(statement)
            }
        }
        #expect(error?.sqlState == "42501")  // insufficient_privilege
    }

    /// What a session of the read-only role does, and keeps doing, while anna imports.
    struct Obstruction: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let statement: String
    }

    static let obstructions: [Obstruction] = [
        Obstruction(
            testDescription: "reading the lock rows in an open transaction",
            statement: "SELECT user_id FROM import_locks WHERE user_id = $1"),
        Obstruction(
            testDescription: "ACCESS SHARE on the lock table", statement: "LOCK TABLE import_locks IN ACCESS SHARE MODE"
        ),
        Obstruction(
            testDescription: "reading the user's rows of every table an import writes",
            statement: """
                SELECT (SELECT count(*) FROM users WHERE id = $1) + (SELECT count(*) FROM imports WHERE user_id = $1)
                    + (SELECT count(*) FROM sleep_samples WHERE user_id = $1)
                    + (SELECT count(*) FROM rollup_state WHERE user_id = $1)
                """),
    ]

    @Test("nothing a read-only session does holds up an import", arguments: obstructions)
    func readOnlyCannotBlock(_ obstruction: Obstruction) throws {
        let (conninfo, setup, anna, _) = try Self.setUp()
        defer { setup.close() }
        let readOnly = try Connection(
            conninfo: ConnectionString.settingParameter("user", to: DatabaseRoles.readOnly, in: conninfo))
        defer { readOnly.close() }
        try readOnly.execute("BEGIN")
        try readOnly.execute(obstruction.statement, obstruction.statement.contains("$1") ? [.int64(anna.id)] : [])
        let userID = anna.id
        let samples = Self.samples(50)
        let finished = finishing(within: 20) {
            try Self.load(conninfo, userID: userID, samples: samples, lockWaitSeconds: 5)
        }
        if !finished.didFinish {
            Issue.record("the import waited for the read-only session")
            readOnly.close()
            finished.waitForThread()
        }
        #expect(try finished.result?.get().inserted == 50)
    }

    @Test("a second import of the user waits at most its lock wait, then fails as busy and names the holder")
    func boundedWait() throws {
        let (conninfo, setup, anna, _) = try Self.setUp()
        defer { setup.close() }
        let held = HeldImport(
            conninfo: conninfo, userID: anna.id, fileName: "/exports/first.xml", samples: Self.samples(20))
        let seen = Mutex<[ImportLockHolder?]>([])
        let userID = anna.id
        let samples = Self.samples(40)
        let started = Int64(Date().timeIntervalSince1970)
        let finished = finishing(within: 20) {
            try Self.load(conninfo, userID: userID, samples: samples, lockWaitSeconds: 0.5) { holder in
                seen.withLock { $0.append(holder) }
            }
        }
        let observed = try ImportLock(connection: setup).holder(userID: anna.id)
        let first = try held.finish()
        if !finished.didFinish { finished.waitForThread() }
        #expect(finished.didFinish, "the second import did not give up")
        let error = finished.error as? StoreError
        #expect(error?.kind == .busy)
        #expect(error?.sqlState == "55P03")
        #expect(finished.seconds >= 0.5 && finished.seconds < 10)
        let holders = seen.withLock { $0 }
        #expect(holders.count == 1)
        let holder = try #require(holders.first ?? nil)
        #expect(holder.activity == .importing(importID: first.importID, fileName: "first.xml"))
        #expect(abs((holder.since ?? 0) - started) < 30)
        #expect(observed == holder)
        // The waiting import wrote nothing; the holder committed; now the lock is free.
        #expect(try Self.count(setup, "SELECT count(*) FROM imports") == 1)
        #expect(try ImportLock(connection: setup).holder(userID: anna.id) == nil)
        let third = try Self.load(conninfo, userID: anna.id, samples: samples, lockWaitSeconds: 0.5)
        #expect(third.inserted == 20)
    }

    /// Work that must go ahead while an import of anna holds her lock.
    enum Beside: String, CaseIterable, Sendable {
        case rollupClaim = "the rollup claims anna"
        case settingsChange = "anna's zone is changed (user set)"
        case otherUsersImport = "ben's import"
    }

    @Test(
        "while an import holds the user's lock, the rollup, a change of settings and other users' imports go ahead",
        arguments: Beside.allCases)
    func unrelatedWorkGoesAhead(_ work: Beside) throws {
        let (conninfo, setup, anna, ben) = try Self.setUp()
        defer { setup.close() }
        let held = HeldImport(conninfo: conninfo, userID: anna.id, samples: Self.samples(10))
        defer { _ = try? held.finish() }
        let annaID = anna.id
        let benID = ben.id
        let finished = finishing(within: 10) { () throws -> Bool in
            let connection = try Connection(conninfo: conninfo)
            defer { connection.close() }
            switch work {
            case .rollupClaim:
                return try connection.transaction { connection in
                    try RollupStateStore(connection: connection).claim(userID: annaID) != nil
                }
            case .settingsChange:
                return try UserStore(connection: connection).update(handle: "anna", timeZone: "Europe/Paris")
                    .timeZoneIdentifier == "Europe/Paris"
            case .otherUsersImport:
                return try Self.load(conninfo, userID: benID, samples: Self.samples(5), lockWaitSeconds: 2).inserted
                    == 5
            }
        }
        if !finished.didFinish {
            Issue.record("\(work.rawValue) waited for anna's import")
            _ = try? held.finish()
            finished.waitForThread()
        }
        #expect(try finished.result?.get() == true)
    }

    @Test("removing a user waits for its running import, says what it waits for, then removes everything")
    func removalWaitsForTheImport() throws {
        let (conninfo, setup, anna, _) = try Self.setUp()
        defer { setup.close() }
        let held = HeldImport(conninfo: conninfo, userID: anna.id, fileName: "-", samples: Self.samples(30))
        let seen = Mutex<[ImportLockHolder?]>([])
        let removal = finishing(within: 1) {
            let connection = try Connection(conninfo: conninfo)
            defer { connection.close() }
            try UserStore(connection: connection).remove(handle: "anna") { holder in seen.withLock { $0.append(holder) }
            }
        }
        #expect(!removal.didFinish, "the removal did not wait for the import")
        let first = try held.finish()
        #expect(removal.waitForThread(seconds: 20))
        let holders = seen.withLock { $0 }
        #expect(holders.count == 1)
        #expect(holders.first??.activity == .importing(importID: first.importID, fileName: "-"))
        for table in ["users", "import_locks", "imports", "sleep_samples", "rollup_state"] {
            #expect(
                try Self.count(
                    setup, "SELECT count(*) FROM \(table) WHERE \(table == "users" ? "id" : "user_id") = \(anna.id)")
                    == 0)
        }
        // A removal with nothing running does not wait and says nothing.
        let quiet = Mutex(0)
        try UserStore(connection: setup).remove(handle: "ben") { _ in quiet.withLock { $0 += 1 } }
        #expect(quiet.withLock { $0 } == 0)
    }

    @Test(
        "an import names its id, user and file in application_name, cut to 63 printable ASCII bytes",
        arguments: [
            ("export.zip", "sleepledger import 42 of user 7: export.zip", "export.zip"),
            ("/home/anna/Downloads/export.zip", "sleepledger import 42 of user 7: export.zip", "export.zip"),
            ("-", "sleepledger import 42 of user 7: -", "-"),
            ("Exportación.zip", "sleepledger import 42 of user 7: Exportaci?n.zip", "Exportaci?n.zip"),
            (
                "a-very-long-export-file-name-from-the-phone.zip",
                "sleepledger import 42 of user 7: a-very-long-export-file-nam...", "a-very-long-export-file-nam..."
            ),
        ])
    func applicationNames(fileName: String, applicationName: String, shownName: String) {
        let name = ImportLock.applicationName(.importing(importID: 42, fileName: fileName), userID: 7)
        #expect(name == applicationName)
        #expect(name.utf8.count <= ImportLock.maximumApplicationNameBytes)
        #expect(ImportLock.activity(fromApplicationName: name) == .importing(importID: 42, fileName: shownName))
        let removal = ImportLock.applicationName(.removingUser, userID: 7)
        #expect(ImportLock.activity(fromApplicationName: removal) == .removingUser)
        #expect(ImportLock.activity(fromApplicationName: "psql") == nil)
    }
}
