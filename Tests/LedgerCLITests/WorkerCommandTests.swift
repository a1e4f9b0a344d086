import Foundation
import LedgerCLI
import Testing

@Suite("sleepledger worker options")
struct WorkerCommandTests {
    /// A job records its spool file's full path, so the worker takes no spool folder: an
    /// option that did nothing is refused, not silently accepted.
    @Test(
        "bad options are usage errors (64) before any database is touched",
        arguments: [
            ["worker", "--spool", "/tmp/spool"], ["worker", "extra"],
        ])
    func badInvocations(arguments: [String]) {
        let (code, captured) = runTool(arguments)
        #expect(code == .usage, "\(captured.errorText)")
        #expect(captured.errorText.hasPrefix("sleepledger: "))
    }

    @Test func usageNamesOnlyTheOptionsItHonours() {
        let (code, captured) = runTool(["worker", "--help"])
        #expect(code == .success)
        #expect(captured.printed.contains("--shared-spool"))
        #expect(!captured.printed.contains("--spool "))
    }
}

/// `sleepledger worker --once` against a server's queue.
@Suite("sleepledger worker: the queue of another process")
struct WorkerQueueTests {
    @Test("worker --once imports a queued upload and rolls its person up, through its own pool as the server's role")
    func once() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try ServerTests.user("anna", server)
        let zip = try ServerTests.export(nights: 10, seed: 5)
        defer { try? FileManager.default.removeItem(at: zip) }
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token)
        #expect(upload.status == 202, "\(upload.body)")
        #expect(try ServerFailureTests.count("SELECT count(*) FROM summaries", server) == 0)

        let (code, captured) = runTool(["worker", "--once"], environment: server.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed == "imported 1 queued upload\n")
        #expect(try ServerFailureTests.count("SELECT count(*) FROM import_jobs WHERE state = 'done'", server) == 1)
        #expect(try ServerFailureTests.count("SELECT count(*) FROM nights", server) > 5)
        #expect(try ServerFailureTests.count("SELECT count(*) FROM summaries", server) == 6, "one summary per horizon")
        #expect(server.spoolFiles.isEmpty)
    }

    /// Issue 20, F2: `--job-cpu` bounds the CPU time of a job's import threads; a real
    /// export's job past it fails with the reason stored on the job. A microsecond is spent
    /// by the first block read: counted on the threads' clocks, not timed.
    @Test("worker --once --job-cpu fails a job whose import threads use more CPU time, saying so on the job")
    func jobCPU() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try ServerTests.user("anna", server)
        let zip = try ServerTests.export(nights: 10, seed: 6)
        defer { try? FileManager.default.removeItem(at: zip) }
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token)
        #expect(upload.status == 202, "\(upload.body)")

        let (code, captured) = runTool(["worker", "--once", "--job-cpu", "0.000001"], environment: server.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(
            try ServerFailureTests.count(
                "SELECT count(*) FROM import_jobs WHERE state = 'failed' "
                    + "AND error LIKE '%reading it used more than 1e-06 s of CPU time, the limit for one import; stopped'",
                server) == 1)
        #expect(try ServerFailureTests.count("SELECT count(*) FROM sleep_samples", server) == 0)
        #expect(server.spoolFiles.isEmpty)
    }
}
