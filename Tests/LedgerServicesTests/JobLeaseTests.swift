import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing

/// Claims as leases (issue 21, item 5; migration 0019): a claim lives while its lease runs,
/// and only the worker whose claim it still is may end the job.
@Suite("Import job leases")
struct JobLeaseTests {
    /// What the first worker tries once its lease lapsed and a second worker claimed the job.
    enum LateCall: String, CaseIterable, Sendable {
        case finishDone, finishFailed, requeue, renew
    }

    /// A queued one-night job of anna's, the session as the server's role, and the store on it.
    static func setUp() throws -> (ServiceFixture, LedgerSession, Int64, ImportJobStore) {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        _ = try ImportQueueTests.queueOneNight(fixture, session, annaID)
        return (fixture, session, annaID, ImportJobStore(connection: session.connection))
    }

    /// The job's state and whether `claim` is the one it is held under.
    static func state(of claim: ImportJobStore.Claim, _ fixture: ServiceFixture) throws -> (String?, Bool?) {
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let row = try connection.execute(
            "SELECT state, claim_token = $2::uuid FROM import_jobs WHERE id = $1",
            [.int64(claim.id), .text(claim.token)]
        ).single()
        return (try row.string(0), try row.bool(1))
    }

    @Test(
        "a claim whose lease lapsed is claimed again by another worker; the first worker then changes nothing (lost)",
        arguments: LateCall.allCases)
    func lapsedLeaseIsLost(call: LateCall) throws {
        let (fixture, session, annaID, store) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let first = try #require(try store.claim(host: "here", anyHost: false, leaseSeconds: 0.2))
        #expect(try store.claim(host: "here", anyHost: false, leaseSeconds: 60) == nil, "the lease still runs")
        usleep(400_000)
        let second = try #require(try store.claim(host: "here", anyHost: false, leaseSeconds: 60))
        #expect(second.id == first.id && second.token != first.token)
        let changed = try session.asUser(annaID) { () -> Bool in
            switch call {
            case .finishDone:
                try store.finish(first, state: .done, importID: nil, error: nil, endedAt: Date().timeIntervalSince1970)
            case .finishFailed:
                try store.finish(
                    first, state: .failed, importID: nil, error: "late", endedAt: Date().timeIntervalSince1970)
            case .requeue: try store.requeue(first)
            case .renew: try store.renew(first, leaseSeconds: 60)
            }
        }
        #expect(!changed)
        let (state, isSecond) = try Self.state(of: second, fixture)
        #expect(state == "running" && isSecond == true)
        let job = try #require(try session.asUser(annaID) { try store.job(userID: annaID, id: second.id) })
        #expect(job.attempts == 2)
        // The second worker's claim is whole: it renews and ends the job.
        let ended = try session.asUser(annaID) { () -> Bool in
            try store.renew(second, leaseSeconds: 60)
                && store.finish(second, state: .done, importID: nil, error: nil, endedAt: Date().timeIntervalSince1970)
        }
        #expect(ended)
        #expect(try Self.state(of: second, fixture).0 == "done")
    }

    @Test(
        "a renewed lease keeps the job from other workers; one not renewed lets them take it after it lapsed",
        arguments: [true, false])
    func renewedLeaseKeepsTheJob(isRenewed: Bool) throws {
        let (fixture, session, annaID, store) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let first = try #require(try store.claim(host: "here", anyHost: false, leaseSeconds: 0.3))
        if isRenewed {
            #expect(try session.asUser(annaID) { try store.renew(first, leaseSeconds: 60) })
        }
        usleep(500_000)
        let second = try store.claim(host: "here", anyHost: false, leaseSeconds: 60)
        #expect((second == nil) == isRenewed)
        #expect(try Self.state(of: first, fixture) == ("running", isRenewed))
    }

    /// The worker's import waits for the person's import lock (held by another import)
    /// five times longer than its lease while another worker tries to claim the job. Renewed
    /// on another session, the lease keeps the job: the other worker finds nothing, and the
    /// first requeues the job when the lock wait ends. Unrenewed, it lapses: the other
    /// worker claims the job, and the first worker's requeue finds the claim gone, changes
    /// nothing and reports the job as the other worker holds it (lost).
    @Test(
        "while a worker imports, its renewed lease keeps the job; an unrenewed one lapses and the job is lost to another worker",
        arguments: [true, false])
    func runNextRenewsOrLoses(isRenewed: Bool) throws {
        let (fixture, session, annaID, _) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let held = HeldImport(conninfo: fixture.conninfo, userID: annaID)
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        let database = fixture.database
        let pool = SessionPool(capacity: 1) { try database.openAsServer(serverURL: serverURL) }
        defer { pool.close() }
        let otherClaim = Mutex<ImportJobStore.Claim?>(nil)
        let claimed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(700_000)
            let claim = try? { () throws -> ImportJobStore.Claim? in
                let other = try database.openAsServer(serverURL: serverURL)
                defer { other.close() }
                return try ImportJobStore(connection: other.connection).claim(
                    host: "here", anyHost: false, leaseSeconds: 60)
            }()
            otherClaim.withLock { $0 = claim }
            claimed.signal()
        }
        let lease = ImportQueue.Lease(seconds: 0.3, renewalSeconds: 0.05, sessions: isRenewed ? pool : nil)
        let job = try #require(
            try ImportQueue(session: session, host: "here").runNext(
                anyHost: false, options: .init(lockWaitSeconds: 1.5), lease: lease))
        claimed.wait()
        _ = try held.finish()
        let second = otherClaim.withLock { $0 }
        if isRenewed {
            #expect(second == nil)
            #expect(job.state == .queued && job.attempts == 0)
        } else {
            let second = try #require(second)
            #expect(job.state == .running && job.attempts == 2 && second.id == job.id)
            #expect(try Self.state(of: second, fixture) == ("running", true))
        }
    }

    @Test("a job whose leases lapsed three times is failed at its fourth claim, not imported again")
    func threeAttemptsThenFailed() throws {
        let (fixture, session, annaID, store) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        for _ in 0..<ImportQueue.maximumAttempts {
            _ = try #require(try store.claim(host: "here", anyHost: false, leaseSeconds: 0.01))
            usleep(50_000)
        }
        let job = try #require(
            try ImportQueue(session: session, host: "here").runNext(anyHost: false, options: .init()))
        #expect(job.state == .failed && job.attempts == 4 && job.userID == annaID)
        #expect(job.error == "gave up after 3 attempts that did not finish")
    }

    /// Liveness is the lease alone: no function of the schema reads pg_locks or takes an
    /// advisory lock, no source file reads pg_locks, and jobs record no backend's pid.
    @Test("no use of pg_locks remains: not in the live schema's functions, not in the sources")
    func noPgLocks() throws {
        let (fixture, session, _, _) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let functions = try connection.execute(
            """
            SELECT p.proname FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace
              AND p.prosrc ~* '(pg_locks|advisory)'
            """
        ).rows.map { try $0.string(0) }
        #expect(functions.isEmpty, "\(functions)")
        let columns = try connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'import_jobs' AND column_name = 'worker_pid'"
        ).rows.count
        #expect(columns == 0)
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        var users: [String] = []
        for case let path as String in files where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            if text.contains("pg_locks") { users.append(path) }
        }
        #expect(users.isEmpty, "\(users)")
    }
}
