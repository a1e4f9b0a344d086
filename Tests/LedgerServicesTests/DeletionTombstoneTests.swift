import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Deleted accounts stay deleted across a restore: the deletion writes a tombstone before
/// it commits, and re-applying the tombstones removes an account a restore brought back,
/// never a newer account that got the same id.
@Suite("Deletion tombstones")
struct DeletionTombstoneTests {
    /// The fixture with a tombstone file in its scratch folder, and that file.
    static func setUp() throws -> (ServiceFixture, LedgerDatabase, TombstoneFile) {
        let fixture = try ServiceFixture()
        let file = TombstoneFile(path: fixture.folder.appendingPathComponent("tombstones").path)
        let database = LedgerDatabase(
            configuration: fixture.database.configuration, migrationsFolder: fixture.database.migrationsFolder,
            tombstoneFile: file)
        return (fixture, database, file)
    }

    /// The users row of `id` as text (every column), read as the superuser.
    static func userRow(_ id: Int64, _ conninfo: String) throws -> String? {
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        return try connection.execute("SELECT u::text FROM users u WHERE id = $1", [.int64(id)]).first?.string(0)
    }

    @Test("a deletion records the id, created_at and deletion time; re-applying removes the same account only")
    func deletionRecordsAndReapplies() throws {
        let (fixture, database, file) = try Self.setUp()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna")
        let ben = try fixture.addUser("ben")
        let annaRow = try #require(try Self.userRow(anna.id, fixture.conninfo))
        let before = Date().timeIntervalSince1970
        let removed = try AccountDeletion(tombstoneFile: file, spoolHost: "here")
            .delete(.handle("anna"), in: fixture.session, waitSeconds: 1)
        #expect(removed.cancelledImports == 0 && removed.removedSpoolFiles == 0)
        let tombstones = try file.tombstones()
        #expect(tombstones.count == 1)
        let tombstone = try #require(tombstones.first)
        #expect(tombstone.userID == anna.id)
        #expect(tombstone.createdAtMicroseconds / 1_000_000 == anna.createdAt)
        #expect(abs(Double(tombstone.deletedAtMicroseconds) / 1e6 - before) < 60)

        // Nothing to re-apply while the account is gone.
        #expect(try database.reapplyDeletions().isEmpty)

        // A restore brings the row back exactly (same id, same created_at): removed again.
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        try connection.execute("INSERT INTO users OVERRIDING SYSTEM VALUE SELECT ($1::users).*", [.text(annaRow)])
        #expect(try Self.userRow(anna.id, fixture.conninfo) == annaRow)
        let reapplied = try database.reapplyDeletions()
        #expect(reapplied.map(\.userID) == [anna.id])
        #expect(reapplied.first?.deletedAtMicroseconds == tombstone.deletedAtMicroseconds)
        #expect(try Self.userRow(anna.id, fixture.conninfo) == nil)
        #expect(try Self.userRow(ben.id, fixture.conninfo) != nil)

        // A newer account under the same id (the sequence went back) has another created_at: kept.
        try connection.execute("INSERT INTO users OVERRIDING SYSTEM VALUE SELECT ($1::users).*", [.text(annaRow)])
        try connection.execute(
            "UPDATE users SET created_at = created_at + interval '1 microsecond' WHERE id = $1", [.int64(anna.id)])
        #expect(try database.reapplyDeletions().isEmpty)
        #expect(try Self.userRow(anna.id, fixture.conninfo) != nil)
    }

    @Test("a deletion whose tombstone cannot be written deletes nothing")
    func unwritableTombstoneFileKeepsTheAccount() throws {
        let (fixture, _, _) = try Self.setUp()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna")
        let unwritable = TombstoneFile(path: fixture.folder.appendingPathComponent("missing/tombstones").path)
        let error = #expect(throws: ServiceError.self) {
            try AccountDeletion(tombstoneFile: unwritable, spoolHost: "here")
                .delete(.handle("anna"), in: fixture.session, waitSeconds: 1)
        }
        #expect(error?.kind == .unavailable)
        #expect(try Self.userRow(anna.id, fixture.conninfo) != nil)
        #expect(try UserService(session: fixture.session).list().map(\.handle) == ["anna"])
    }

    @Test(
        "tombstone lines",
        arguments: [
            (
                "12 1796544839357028 1796544841855142",
                Tombstone(
                    userID: 12, createdAtMicroseconds: 1_796_544_839_357_028,
                    deletedAtMicroseconds: 1_796_544_841_855_142)
            ),
            ("12 1796544839357028", nil),
            ("12 x 3", nil),
            ("", nil),
        ] as [(String, Tombstone?)])
    func lines(text: String, expected: Tombstone?) {
        #expect(Tombstone(line: Substring(text)) == expected)
        if let expected { #expect(expected.line == text + "\n") }
    }
}
