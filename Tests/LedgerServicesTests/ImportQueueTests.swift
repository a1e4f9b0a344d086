import Foundation
import HealthImport
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// The queue's workers on the server's role.
@Suite("Import queue")
struct ImportQueueTests {
    @Test("a job's finished_at is when its import ended, not when its transaction began")
    func finishedAtIsTheEnd() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let csv =
            "sourceName,startDate,endDate,value\n"
            + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let path = try fixture.write("upload.csv", csv)
        let queue = ImportQueue(session: session, host: "here")
        _ = try queue.enqueue(
            .init(
                fileName: "upload.csv", contentType: "text/csv", sizeBytes: Int64(csv.utf8.count),
                sha256: String(repeating: "a", count: 64), spoolPath: path),
            userID: annaID, maximumPending: 3)
        let job = try #require(try queue.runNext(anyHost: false, options: .init()))
        #expect(job.state == .done)
        // The import's audit row ends with clock_timestamp() inside the job's transaction;
        // the job ends after it.
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
        let csv =
            "sourceName,startDate,endDate,value\n"
            + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let path = try fixture.write("upload.csv", csv)
        let queue = ImportQueue(session: session, host: "here")
        _ = try queue.enqueue(
            .init(
                fileName: "upload.csv", contentType: "text/csv", sizeBytes: Int64(csv.utf8.count),
                sha256: String(repeating: "b", count: 64), spoolPath: path),
            userID: annaID, maximumPending: 3)
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
