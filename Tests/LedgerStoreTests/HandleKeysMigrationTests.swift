import Foundation
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerStore

/// Migration 0007 on databases made before it: existing handles get their NFC form and
/// key; handles that are one handle under the new rule stop it with the list of them.
@Suite("Migration 0007 (handle keys)")
struct HandleKeysMigrationTests {
    /// A database whose ctype is C, as the embedded cluster's (`initdb --locale=C`): there
    /// `lower()` folds ASCII only, which is what let `Åsa` and `åsa` be two users.
    static func cLocaleDatabase() throws -> (conninfo: String, drop: () -> Void) {
        let server = try TestDatabase.server()
        let name = "sleepledger_test_c_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let maintenance = try Connection(conninfo: server.maintenanceConninfo)
        defer { maintenance.close() }
        try maintenance.execute(
            """
            CREATE DATABASE \(try maintenance.quoteIdentifier(name))
            TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'
            """)
        return (server.conninfoForDatabase(name), { try? TestDatabase.drop(name) })
    }

    /// Migrates to 0006, the schema before handle keys, and adds `handles` as `sleepledger
    /// user add` did then (the old unique index on lower(handle) allows each of them);
    /// returns their ids in order. (Not a dictionary: Swift's `String` equality already
    /// treats the two spellings of `josé` as one.)
    static func previousSchema(_ connection: Connection, handles: [String]) throws -> [Int64] {
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version <= 6 }).migrate(on: connection)
        return try handles.map { handle in
            let id =
                try connection.execute(
                    "INSERT INTO users (handle, time_zone) VALUES ($1, 'UTC') RETURNING id", [.text(handle)]
                ).single().int64(0) ?? 0
            try connection.execute("INSERT INTO rollup_state (user_id) VALUES ($1)", [.int64(id)])
            return id
        }
    }

    @Test("colliding handles stop the migration with their user ids, and their handles in the debug detail")
    func collisionsStop() throws {
        let database = try Self.cLocaleDatabase()
        defer { database.drop() }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let handles = ["anna", "Åsa", "jos\u{E9}", "åsa", "Straße", "jose\u{301}", "STRASSE", "A\u{30A}SA"]
        let ids = try Self.previousSchema(connection, handles: handles)
        let migrator = try Migrator(folder: TestDatabase.migrationsFolder)
        let error = #expect(throws: StoreError.self) { try migrator.migrate(on: connection) }
        #expect(error?.kind == .migrationFailed)
        #expect(error?.statement == "0007_handle_keys.sql")
        #expect(error?.sqlState == "23505")  // unique_violation
        let group = { (positions: [Int]) in "users " + positions.map { String(ids[$0]) }.joined(separator: ", ") }
        #expect(
            error?.message
                == "migration 0007_handle_keys.sql failed: 3 group(s) of users have handles that are one handle "
                + "under the new rule (Unicode NFC and full case folding): \(group([1, 3, 7])); "
                + "\(group([2, 5])); \(group([4, 6])). Rename all but one user of each group "
                + "(docs/operations.md, Handles), then migrate again")
        // The log-safe description holds ids only; the handles are in the debug detail.
        #expect(error?.description.contains("Åsa") == false)
        let detail = error?.debugDetail ?? ""
        #expect(
            detail.contains(
                "one handle: \(ids[1]) 'Åsa' = \(ids[3]) 'åsa' = \(ids[7]) 'ÅSA'; \(ids[2]) 'josé' = \(ids[5]) 'josé'; "
                    + "\(ids[4]) 'Straße' = \(ids[6]) 'STRASSE'"))
        #expect(!detail.contains("anna"))
        // Nothing of 0007 was applied.
        #expect(try migrator.status(on: connection).first { $0.version == 7 }?.state == .pending)
        #expect(
            try connection.execute(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'handle_key'"
            ).single().int(0) == 0)

        // Renaming all but one of each group (by id, on the old schema) lets it through.
        for (position, renamed) in [(3, "asa2"), (7, "asa3"), (5, "jose2"), (6, "strasse2")] {
            try connection.execute(
                "UPDATE users SET handle = $2 WHERE id = $1", [.int64(ids[position]), .text(renamed)])
        }
        #expect(try migrator.migrate(on: connection).map(\.version).first == 7)
        let store = UserStore(connection: connection)
        #expect(try store.find(handle: "ÅSA")?.id == ids[1])
        #expect(try store.find(handle: "JOSE\u{301}")?.id == ids[2])
        #expect(try store.find(handle: "STRASSE")?.id == ids[4])
        #expect(try store.find(handle: "Asa2")?.id == ids[3])
    }

    @Test("existing handles are stored in NFC with their keys, and found in any case and spelling")
    func fillsKeys() throws {
        let database = try Self.cLocaleDatabase()
        defer { database.drop() }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let ids = try Self.previousSchema(connection, handles: ["Anna", "A\u{30A}sa", "İsa", "Isa", "Straße"])
        let (asa, strasse, isa) = (ids[1], ids[4], ids[3])
        try Migrator(folder: TestDatabase.migrationsFolder).migrate(on: connection)
        let rows = try connection.execute("SELECT id, handle, handle_key FROM users ORDER BY id").rows
        let stored = try rows.map { [try $0.string(1) ?? "", try $0.string(2) ?? ""] }
        let expected = [
            ["Anna", "anna"], ["Åsa", "åsa"], ["İsa", "i\u{307}sa"], ["Isa", "isa"], ["Straße", "strasse"],
        ]
        #expect(
            stored.map { $0.map { Array($0.unicodeScalars) } } == expected.map { $0.map { Array($0.unicodeScalars) } })
        let store = UserStore(connection: connection)
        #expect(try store.find(handle: "åSA")?.id == asa)
        #expect(try store.find(handle: "STRASSE")?.id == strasse)
        #expect(try store.find(handle: "isa")?.id == isa)
        #expect(try store.list().map(\.handle) == ["Anna", "Isa", "İsa", "Straße", "Åsa"])
        // The backstop: an ASCII handle written without its key is refused by the table.
        let error = #expect(throws: PostgresError.self) {
            try connection.execute("INSERT INTO users (handle, handle_key, time_zone) VALUES ('Ben', 'Ben', 'UTC')")
        }
        #expect(error?.constraint == "users_handle_key_check")
    }

    @Test("the migration's SQL applied by hand, without the keys sleepledger migrate computes, stops at once")
    func refusesManualApplication() throws {
        let database = try TestDatabase.fresh()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        _ = try Self.previousSchema(connection, handles: ["anna"])
        let sql = try #require(try Migrator(folder: TestDatabase.migrationsFolder).migrations.first { $0.version == 7 })
            .sql
        let error = #expect(throws: PostgresError.self) { try connection.executeScript(sql) }
        #expect(error?.message.contains("apply it with sleepledger migrate") == true)
    }
}
