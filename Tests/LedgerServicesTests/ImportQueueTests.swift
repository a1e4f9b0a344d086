import Foundation
import HealthImport
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing

/// The queue's workers on the server's role.
@Suite("Import queue")
struct ImportQueueTests {
    /// A worker's claim token.
    static let token = "5b0f0c1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f"

    /// Queues one night's CSV for `userID` on `session`, and returns the queue.
    static func queueOneNight(_ fixture: ServiceFixture, _ session: LedgerSession, _ userID: Int64) throws
        -> ImportQueue
    {
        let csv =
            "sourceName,startDate,endDate,value\n"
            + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let path = try fixture.write("upload.csv", csv)
        let queue = ImportQueue(session: session, host: "here")
        _ = try queue.enqueue(
            .init(
                fileName: "upload.csv", contentType: "text/csv", sizeBytes: Int64(csv.utf8.count),
                sha256: String(repeating: "a", count: 64), spoolPath: path),
            userID: userID, maximumPending: 3)
        return queue
    }

    @Test("a job's finished_at is when its import ended, not when its transaction began")
    func finishedAtIsTheEnd() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let queue = try Self.queueOneNight(fixture, session, annaID)
        let job = try #require(try queue.runNext(anyHost: false, options: .init()))
        #expect(job.state == .done)
        // The import's audit row ends at the wall clock's time when the import ended (a
        // parameter, not the transaction's time); the job ends after it.
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let later = try connection.execute(
            """
            SELECT j.finished_at >= i.finished_at AND i.finished_at > j.started_at
            FROM import_jobs j JOIN imports i ON i.id = j.import_id WHERE j.id = $1
            """, [.int64(job.id)]
        ).first?.bool(0)
        #expect(later == true)
    }

    /// Issue 21, item 3: the end times are the wall clock's, passed in (a distributed
    /// database refuses `clock_timestamp()` in an UPDATE), and never before the start.
    @Test("a job's and its import's finished_at are the wall clock's time passed in, never before they started")
    func finishedAtIsPassedIn() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        var queue = try Self.queueOneNight(fixture, session, annaID)
        queue.wallClock = { 4_102_444_800.25 }  // 2100-01-01T00:00:00.25Z
        let job = try #require(try queue.runNext(anyHost: false, options: .init()))
        #expect(job.state == .done)
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let ended = try connection.execute(
            "SELECT extract(epoch FROM finished_at)::float8 FROM import_jobs WHERE id = $1", [.int64(job.id)]
        ).single().double(0)
        #expect(ended == 4_102_444_800.25)

        // A clock behind the database's: the end is the start, not before it.
        let past = try connection.execute(
            """
            INSERT INTO import_jobs (user_id, number, file_name, size_bytes, sha256, spool_host, spool_path, state,
                                     started_at, claim_token, claimed_until)
            VALUES ($1, 99, 'x.csv', 1, $2, 'here', '/nonexistent', 'running', now(), $3::uuid, now() + interval '1 minute')
            RETURNING id
            """, [.int64(annaID), .text(String(repeating: "b", count: 64)), .text(Self.token)]
        ).single().int64(0)
        let store = ImportJobStore(connection: connection)
        let pastID = try #require(past)
        let claim = ImportJobStore.Claim(userID: annaID, id: pastID, token: Self.token)
        #expect(try store.finish(claim, state: .failed, importID: nil, error: "x", endedAt: 0))
        let atStart = try connection.execute(
            "SELECT finished_at = started_at FROM import_jobs WHERE id = $1", [.int64(pastID)]
        ).single().bool(0)
        #expect(atStart == true)
    }

    /// Issue 20, F2: a job's import threads get a CPU budget (`--job-cpu`); past it the job
    /// fails with a reason saying so, as other failures do. A microsecond is spent by the
    /// first block read or chunk scanned: counted on the threads' clocks, not timed.
    @Test("a job whose import threads use more CPU time than the budget fails with that reason, recorded")
    func cpuBudget() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let queue = try Self.queueOneNight(fixture, session, annaID)
        let options = ImportService.Options(reader: ReaderOptions(maximumCPUSeconds: 0.000_001))
        let job = try #require(try queue.runNext(anyHost: false, options: options))
        #expect(job.state == .failed)
        #expect(
            job.error == "upload.csv: reading it used more than 1e-06 s of CPU time, the limit for one import; stopped")
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let recorded = try connection.execute(
            "SELECT count(*) FROM imports WHERE status = 'failed' AND error LIKE '%of CPU time, the limit%'"
        ).first?.int64(0)
        #expect(recorded == 1)
    }

    @Test("uploads of one file queued at once make one job: the others answer with it (issue 20, F9)")
    func simultaneousUploadsOfOneFile() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let count = 4
        let database = fixture.database
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        let paths = try (0..<count).map { try fixture.write("upload-\($0)", "the same bytes") }
        // Every upload looks for an earlier job of its bytes and finds none before any
        // inserts: this lock lets them look but holds their inserts until all of them wait.
        let blocker = try Connection(conninfo: fixture.conninfo)
        defer { blocker.close() }
        try blocker.execute("BEGIN")
        try blocker.execute("LOCK TABLE import_jobs IN SHARE MODE")
        // Threads of their own, started at once (a task on the cooperative pool may start
        // only after the other tests' blocking calls let it).
        let results = Mutex<[Result<ImportQueue.Queued, any Error>]>([])
        let ended = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread.detachNewThread {
                let result = Result { () throws -> ImportQueue.Queued in
                    let session = try database.openAsServer(serverURL: serverURL)
                    defer { session.close() }
                    return try ImportQueue(session: session, host: "here").enqueue(
                        .init(
                            fileName: "upload-\(index).csv", contentType: "text/csv", sizeBytes: 14,
                            sha256: String(repeating: "f", count: 64), spoolPath: paths[index]),
                        userID: annaID, maximumPending: count)
                }
                results.withLock { $0.append(result) }
                ended.signal()
            }
        }
        // Watched from a connection of its own: a transaction sees one snapshot of pg_stat_activity.
        let observer = try Connection(conninfo: fixture.conninfo)
        defer { observer.close() }
        let deadline = Date(timeIntervalSinceNow: 120)
        var waiting: Int64 = 0
        while waiting < count, Date() < deadline {
            usleep(20_000)
            waiting =
                try observer.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                ).single().int64(0) ?? 0
        }
        #expect(waiting == Int64(count), "every upload waits to insert its job")
        try blocker.execute("COMMIT")
        for _ in 0..<count { ended.wait() }
        let outcomes = try results.withLock { $0 }.map { try $0.get() }
        let queued = outcomes.compactMap { if case .queued(let job) = $0 { job } else { nil } }
        let earlier = outcomes.compactMap { if case .sameAsEarlier(let job) = $0 { job } else { nil } }
        #expect(queued.count == 1)
        #expect(earlier.count == count - 1 && earlier.allSatisfy { $0.id == queued.first?.id })
        let jobs = try observer.execute("SELECT count(*) FROM import_jobs WHERE user_id = $1", [.int64(annaID)])
        #expect(try jobs.single().int64(0) == 1)
    }

    @Test(
        "a job keeps at most 255 Unicode scalars of a file name: more are cut, whatever characters they make",
        arguments: [
            ("export.zip", "export.zip"),
            ("", "upload"),
            (String(repeating: "a", count: 255), String(repeating: "a", count: 255)),
            (String(repeating: "a", count: 256), String(repeating: "a", count: 255)),
            // 200 characters, 400 scalars: the 128th character keeps its "e", loses its accent.
            (String(repeating: "e\u{301}", count: 200), String(repeating: "e\u{301}", count: 127) + "e"),
            // Flags are two scalars each; 130 of them are 260.
            (
                String(repeating: "\u{1F1E9}\u{1F1EA}", count: 130),
                String(repeating: "\u{1F1E9}\u{1F1EA}", count: 127) + "\u{1F1E9}"
            ),
        ])
    func storedFileName(name: String, stored: String) {
        #expect(ImportQueue.storedFileName(name).unicodeScalars.elementsEqual(stored.unicodeScalars))
        #expect(stored.unicodeScalars.count <= 255)
    }

    @Test("a name of more than 255 Unicode scalars is stored cut, not refused by the column's check (issue 20, F10)")
    func longFileNameQueued() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let path = try fixture.write("upload", "bytes")
        let queued = try ImportQueue(session: session, host: "here").enqueue(
            .init(
                fileName: String(repeating: "e\u{301}", count: 200), contentType: nil, sizeBytes: 5,
                sha256: String(repeating: "b", count: 64), spoolPath: path),
            userID: annaID, maximumPending: 3)
        guard case .queued(let job) = queued else {
            Issue.record("not queued: \(queued)")
            return
        }
        #expect(job.fileName.unicodeScalars.count == 255)
    }

    @Test(
        "the sweep removes partial uploads whose writer is gone at any age, never a file still held, and received uploads no job needs once old"
    )
    func sweep() throws {
        let (fixture, session, _) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let spool = fixture.folder.appendingPathComponent("spool").path
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let names = [
            "incoming-written.partial", "incoming-abandoned.partial", "upload-fresh", "upload-old", "upload-held",
            "other",
        ]
        for name in names { try Data("bytes".utf8).write(to: URL(fileURLWithPath: spool + "/" + name)) }
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: spool + "/upload-old")
        for name in ["incoming-written.partial", "upload-held"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: spool + "/" + name)
        }
        // A receiver holds its file while it writes and until the job is queued.
        let writers = ["incoming-written.partial", "upload-held"].map { open(spool + "/" + $0, O_WRONLY | O_CLOEXEC) }
        for writer in writers { #expect(writer >= 0 && flock(writer, LOCK_EX | LOCK_NB) == 0) }
        defer { for writer in writers { close(writer) } }

        let removed = try ImportQueue(session: session, host: "here").sweep(
            Spool(folder: spool, host: "here"), minimumAgeSeconds: 60)
        #expect(removed == 2)
        let left = try FileManager.default.contentsOfDirectory(atPath: spool).sorted()
        #expect(left == ["incoming-written.partial", "other", "upload-fresh", "upload-held"])
    }
}
