import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import Testing

@Suite("Users repository")
struct UserStoreTests {
    static func store() throws -> UserStore {
        UserStore(connection: try Connection(conninfo: TestDatabase.migrated().conninfo))
    }

    static func rollupStale(_ store: UserStore, _ id: Int64) throws -> Bool? {
        try store.connection.execute(
            "SELECT summaries_stale FROM rollup_state WHERE user_id = $1", [.int64(id)]
        ).single().bool(0)
    }

    @Test("add, find, list: defaults are 8 h target and 7 h minimum")
    func addFindList() throws {
        let store = try Self.store()
        let anna = try store.add(handle: "anna", timeZone: "Europe/Berlin")
        #expect(anna.goals == SleepGoals(targetSeconds: 28_800, minimumSeconds: 25_200))
        #expect(anna.timeZoneIdentifier == "Europe/Berlin")
        #expect(anna.createdAt > 1_700_000_000)
        let ben = try store.add(
            handle: "Ben", timeZone: "America/New_York",
            goals: SleepGoals(targetSeconds: 30_600, minimumSeconds: 27_000))
        #expect(try store.find(handle: "anna") == anna)
        #expect(try store.find(handle: "ben") == ben)  // handles match in any letter case
        #expect(try store.find(handle: "carl") == nil)
        #expect(try store.list().map(\.handle) == ["anna", "Ben"])
        #expect(try Self.rollupStale(store, anna.id) == false)
    }

    @Test("a handle that exists in any letter case is refused with alreadyExists")
    func duplicateHandle() throws {
        let store = try Self.store()
        try store.add(handle: "anna", timeZone: "UTC")
        let error = #expect(throws: PostgresError.self) { try store.add(handle: "ANNA", timeZone: "UTC") }
        #expect(error?.kind == .alreadyExists)
        #expect(error?.sqlState == "23505")
        #expect(error?.constraint == "users_handle_key")
        #expect(try store.list().count == 1)
    }

    @Test("a target below the minimum is refused by the database's check constraint")
    func checkConstraint() throws {
        let store = try Self.store()
        let error = #expect(throws: PostgresError.self) {
            try store.add(
                handle: "anna", timeZone: "UTC", goals: SleepGoals(targetSeconds: 6 * 3600, minimumSeconds: 7 * 3600))
        }
        #expect(error?.kind == .constraintViolated)
        #expect(error?.sqlState == "23514")
        #expect(error?.constraint == "users_goals_check")
        try store.add(handle: "ben", timeZone: "UTC")
        let update = #expect(throws: PostgresError.self) {
            try store.update(handle: "ben", goals: SleepGoals(targetSeconds: 3600, minimumSeconds: 7200))
        }
        #expect(update?.kind == .constraintViolated)
        #expect(try store.find(handle: "ben")?.goals == SleepGoals())
        let zero = #expect(throws: PostgresError.self) {
            try store.add(handle: "carl", timeZone: "UTC", goals: SleepGoals(targetSeconds: 0, minimumSeconds: 0))
        }
        #expect(zero?.kind == .constraintViolated)
    }

    @Test("unknown handles are refused with notFound on update and remove")
    func unknownHandle() throws {
        let store = try Self.store()
        let update = #expect(throws: StoreError.self) { try store.update(handle: "ghost", timeZone: "UTC") }
        #expect(update?.kind == .notFound)
        #expect(update?.message == "no user with that handle")
        let remove = #expect(throws: StoreError.self) { try store.remove(handle: "ghost") }
        #expect(remove?.kind == .notFound)
    }

    @Test(
        "changing zone, target or minimum marks summaries stale; an unchanged update does not",
        arguments: [
            (String?.none, SleepGoals?.none, false),
            ("Europe/Berlin", nil, false),
            ("Asia/Tokyo", nil, true),
            (nil, SleepGoals(targetSeconds: 28_800, minimumSeconds: 25_200), false),
            (nil, SleepGoals(targetSeconds: 27_000, minimumSeconds: 25_200), true),
            (nil, SleepGoals(targetSeconds: 28_800, minimumSeconds: 21_600), true),
        ])
    func updateMarksStale(zone: String?, goals: SleepGoals?, stale: Bool) throws {
        let store = try Self.store()
        let anna = try store.add(handle: "anna", timeZone: "Europe/Berlin")
        let updated = try store.update(handle: "Anna", timeZone: zone, goals: goals)
        #expect(updated.id == anna.id)
        #expect(updated.timeZoneIdentifier == (zone ?? "Europe/Berlin"))
        #expect(updated.goals == (goals ?? SleepGoals()))
        #expect(try store.find(handle: "anna") == updated)
        #expect(try Self.rollupStale(store, anna.id) == stale)
    }

    @Test("removing a user removes its samples, imports and rollup state")
    func removeCascades() throws {
        let store = try Self.store()
        let anna = try store.add(handle: "anna", timeZone: "UTC")
        let ben = try store.add(handle: "ben", timeZone: "UTC")
        let connection = store.connection
        for user in [anna, ben] {
            let importID = try connection.execute(
                """
                INSERT INTO imports (user_id, file_name, size_bytes, sha256, kind)
                VALUES ($1, 'export.zip', 1024, $2, 'zip') RETURNING id
                """, [.int64(user.id), .text(String(repeating: "0f", count: 32))]
            ).single().int64(0)
            try connection.execute(
                """
                INSERT INTO sleep_samples (user_id, source, start_at, end_at, stage, import_id)
                VALUES ($1, 'Watch', $2, $3, 'core', $4)
                """,
                [
                    .int64(user.id), .timestamp(epochSeconds: 1_700_000_000), .timestamp(epochSeconds: 1_700_001_800),
                    importID.map(SQLValue.int64),
                ])
        }
        try store.remove(handle: "ANNA")
        #expect(try store.find(handle: "anna") == nil)
        for table in ["imports", "sleep_samples", "rollup_state"] {
            let owners = try connection.execute("SELECT DISTINCT user_id FROM \(table)").rows.map { try $0.int64(0) }
            #expect(owners == [ben.id], "\(table)")
        }
    }
}

@Suite("Users repository: handles under the Unicode rule")
struct UserStoreHandleTests {
    @Test(
        "two spellings of one handle: the second is refused, and every spelling finds, changes and removes the user",
        arguments: [
            ("Åsa", "åsa"), ("åsa", "A\u{30A}SA"), ("jos\u{E9}", "jose\u{301}"), ("Straße", "STRASSE"),
            ("ǅemal", "ǆemal"), ("σοφος", "ΣΟΦΟΣ"), ("İsa", "i\u{307}sa"),
        ])
    func oneHandle(first: String, second: String) throws {
        let store = try UserStoreTests.store()
        let user = try store.add(handle: first, timeZone: "UTC")
        let error = #expect(throws: PostgresError.self) { try store.add(handle: second, timeZone: "UTC") }
        #expect(error?.kind == .alreadyExists)
        #expect(error?.constraint == "users_handle_key")
        #expect(try store.find(handle: second) == user)
        #expect(try store.states(second).map(\.userID) == [user.id])
        #expect(try store.update(handle: second, timeZone: "Asia/Tokyo").id == user.id)
        try store.remove(handle: second)
        #expect(try store.list().isEmpty)
    }

    @Test(
        "look-alikes that stay two users: no language's special rule, no compatibility folding",
        arguments: [("İsa", "Isa"), ("ısa", "isa"), ("ısa", "Isa"), ("ａnna", "anna"), ("anna", "anna_")])
    func twoUsers(first: String, second: String) throws {
        let store = try UserStoreTests.store()
        let one = try store.add(handle: first, timeZone: "UTC")
        let two = try store.add(handle: second, timeZone: "UTC")
        #expect(try store.find(handle: first) == one)
        #expect(try store.find(handle: second) == two)
    }

    @Test("a handle typed decomposed is stored and shown composed (NFC)")
    func storedInNFC() throws {
        let store = try UserStoreTests.store()
        let user = try store.add(handle: "Jose\u{301}", timeZone: "UTC")
        #expect(Array(user.handle.unicodeScalars) == Array("Jos\u{E9}".unicodeScalars))
        let stored = try store.connection.execute("SELECT handle, handle_key FROM users").single()
        #expect(try stored.string(0).map { Array($0.unicodeScalars) } == Array("Jos\u{E9}".unicodeScalars))
        #expect(try stored.string(1).map { Array($0.unicodeScalars) } == Array("jos\u{E9}".unicodeScalars))
    }

    @Test("renaming: to a new handle, to another letter case of the same one, never onto another user's")
    func rename() throws {
        let store = try UserStoreTests.store()
        let anna = try store.add(handle: "anna", timeZone: "UTC")
        _ = try store.add(handle: "Åsa", timeZone: "UTC")
        let renamed = try store.update(handle: "ANNA", newHandle: "Anna-Lena")
        #expect(renamed.id == anna.id)
        #expect(renamed.handle == "Anna-Lena")
        #expect(try store.find(handle: "anna") == nil)
        #expect(try store.find(handle: "anna-lena") == renamed)
        #expect(try store.update(handle: "anna-lena", newHandle: "ANNA-LENA").handle == "ANNA-LENA")
        let taken = #expect(throws: PostgresError.self) { try store.update(handle: "anna-lena", newHandle: "ÅSA") }
        #expect(taken?.kind == .alreadyExists)
        #expect(try store.find(handle: "anna-lena")?.handle == "ANNA-LENA")
        // A new name changes no sleep figure: the summaries stay as they are.
        #expect(try UserStoreTests.rollupStale(store, anna.id) == false)
    }

    @Test("users are listed by key: letter case and accent spelling sort together")
    func listOrder() throws {
        let store = try UserStoreTests.store()
        for handle in ["bob", "Zoe", "A\u{30A}sa", "anna", "Carl"] { try store.add(handle: handle, timeZone: "UTC") }
        #expect(try store.list().map(\.handle) == ["anna", "bob", "Carl", "Zoe", "Åsa"])
    }
}

extension UserStore {
    /// The rollup's work list for one handle.
    fileprivate func states(_ handle: String) throws -> [RollupStateStore.UserState] {
        try RollupStateStore(connection: connection).states(handle: handle)
    }
}
