import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Issue 23, item 3: where a person's reads go when a replica is configured. The replica
/// itself (a standby behind its primary) is deploy/replica-test.sh's; here the decisions.
@Suite("Reads from a replica: each person reads their own writes")
struct ReplicaReadsTests {
    @Test(
        "WAL positions as PostgreSQL writes them",
        arguments: [
            ("0/0", UInt64(0) as UInt64?), ("0/3000110", 0x300_0110), ("16/B374D848", 0x16_B374_D848),
            ("FFFFFFFF/FFFFFFFF", UInt64.max), ("1/2/3", nil), ("x/1", nil), ("", nil), ("100000000/0", nil),
        ])
    func positions(_ text: String, _ expected: UInt64?) {
        #expect(ReplicaReads.position(text) == expected)
    }

    /// A pool whose sessions never open: a replica out of reach.
    static let unreachable = SessionPool(capacity: 1, reconnectSeconds: 0.1) {
        throw ServiceError(PostgresError(.connectionFailed, "could not connect"))
    }

    @Test("a person with nothing recorded reads from the replica without asking it")
    func nothingRecorded() {
        let replica = ReplicaReads(sessions: Self.unreachable)
        #expect(replica.isCaughtUp(userID: 7))
        #expect(replica.recordedPosition(userID: 7) == nil)
    }

    @Test("after a request on the primary: the replica only once it has replayed the position; none it cannot ask")
    func recordedPosition() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        let database = fixture.database
        let primary = SessionPool(capacity: 2) { try database.openAsServer(serverURL: serverURL) }
        defer { primary.close() }
        // A replica that cannot be asked: the person's reads go to the primary (after at most 200 ms).
        let away = ReplicaReads(sessions: Self.unreachable)
        away.recordPrimaryPosition(userID: 7, primary: primary)
        let recorded = try #require(away.recordedPosition(userID: 7))
        #expect(recorded > 0)
        let started = Date()
        #expect(!away.isCaughtUp(userID: 7))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(away.isCaughtUp(userID: 8))
        // A read URL that reached a primary (no replay position) is always caught up.
        let onPrimary = ReplicaReads(sessions: primary)
        onPrimary.recordPrimaryPosition(userID: 7, primary: primary)
        #expect(onPrimary.isCaughtUp(userID: 7))
        #expect(onPrimary.lagSeconds() == 0)
        // Positions only grow.
        try fixture.session.connection.execute("CREATE TABLE wal_filler AS SELECT generate_series(1, 1000) AS n")
        onPrimary.recordPrimaryPosition(userID: 7, primary: primary)
        #expect(try #require(onPrimary.recordedPosition(userID: 7)) > recorded)
    }
}
