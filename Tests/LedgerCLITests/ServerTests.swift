import ExportFixtures
import Foundation
import Glibc
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Synchronization
import Testing

/// The upload server as a real process on 127.0.0.1 with a real database, driven by curl
/// and raw sockets.
@Suite("sleepledger serve", .serialized)
struct ServerTests {
    /// A user with a token on the server's database; returns the token.
    static func user(_ handle: String, _ server: ServerProcess, scope: String = "full") throws -> String {
        let environment = server.environment
        _ = runTool(["user", "add", handle, "--time-zone", "Europe/Berlin"], environment: environment)
        let (code, captured) = runTool(
            ["token", "create", "--user", handle, "--scope", scope], environment: environment)
        guard code == .success else { throw ServerProcess.ServerProcessError(message: captured.errorText) }
        return captured.printed.trimmingCharacters(in: .newlines)
    }

    /// A generated export.zip of `nights` nights (different `seed`s give different bytes).
    static func export(nights: Int, seed: UInt64) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).zip")
        let first = LocalDate(year: 2024, month: 1, day: 1)
        let samples = SleepStreamGenerator(seed: seed).samples(from: first, through: first.adding(days: nights - 1))
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: seed), toPath: url.path)
        return url
    }

    /// Waits until import `id` is no longer queued or running.
    static func waitForImport(_ id: Int, token: String, _ server: ServerProcess, seconds: Double = 60) throws
        -> ServerProcess.Response
    {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let response = try server.curl("/api/v1/imports/\(id)", token: token)
            let state = response.importObject["state"] as? String
            if state != "queued" && state != "running" || Date() > deadline { return response }
            usleep(100_000)
        }
    }

    @Test("an upload is queued (202), imported by a worker, rolled up, and the same bytes again answer 200")
    func uploadToSummary() throws {
        let server = try ServerProcess()
        let token = try Self.user("anna", server)
        let zip = try Self.export(nights: 30, seed: 3)
        defer { try? FileManager.default.removeItem(at: zip) }

        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token)
        #expect(upload.status == 202, "\(upload.body) \(server.logText)")
        let id = try #require(upload.importObject["id"] as? Int)
        #expect(upload.headers["location"] == "http://127.0.0.1:\(server.port)/api/v1/imports/\(id)")
        let done = try Self.waitForImport(id, token: token, server)
        #expect(done.importObject["state"] as? String == "done", "\(done.body)")
        let counts = try #require(done.importObject["counts"] as? [String: Any])
        #expect((counts["inserted"] as? Int ?? 0) > 100)
        #expect(server.spoolFiles.isEmpty)

        // The worker rolled the user up: the summary is there without `sleepledger rollup`
        // (the rollup follows the import's end, so it may still run for a moment).
        let connection = try server.connection()
        defer { connection.close() }
        let rolledUp = Date(timeIntervalSinceNow: 60)
        while try connection.execute("SELECT count(*) FROM summaries").single().int(0) != 6, Date() < rolledUp {
            usleep(100_000)
        }
        var admin = server.environment
        admin["SLEEPLEDGER_ADMIN_DATABASE_URL"] = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: server.conninfo)
        let (code, captured) = runAdmin(["summary", "anna", "--as-of", "2024-01-30"], environment: admin)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("Sleep debt"))
        #expect(try connection.execute("SELECT count(*) FROM summaries").single().int(0) == 6)

        let again = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token)
        #expect(again.status == 200)
        #expect(again.importObject["id"] as? Int == id)
        let list = try server.curl("/api/v1/imports", token: token)
        #expect((list.json["imports"] as? [Any])?.count == 1)
        #expect(try connection.execute("SELECT count(*) FROM imports").single().int(0) == 1)
        server.stop()
        #expect(server.logText.contains("\"POST /api/v1/imports\" 202"))
        #expect(!server.logText.contains(token))
    }

    @Test("every refusal has its status and a JSON error; the body of a refused upload is not read")
    func refusals() throws {
        let server = try ServerProcess(["--max-upload", "4096", "--workers", "0", "--max-pending", "1"])
        let token = try Self.user("anna", server)
        let csvHeader = "sourceName,startDate,endDate,value\n"

        var response = try server.curl("/api/v1/imports")
        #expect(response.status == 401 && response.headers["www-authenticate"] == "Bearer")
        #expect(response.errorCode == "unauthorized")
        response = try server.curl("/api/v1/imports", token: "sl_0000000000000001_" + String(repeating: "A", count: 43))
        #expect(response.status == 401)
        response = try server.curl("/api/v1/nothing/here", token: token)
        #expect(response.status == 404 && response.errorCode == "not_found")
        response = try server.curl("/api/v1/imports", ["-X", "PUT"], token: token)
        #expect(response.status == 405 && response.headers["allow"] == "GET, POST")
        response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: image/png", "--data-binary", "x"], token: token)
        #expect(response.status == 415)
        // A form without a boundary cannot be read.
        response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: multipart/form-data", "--data-binary", "--x\r\n\r\nx"],
            token: token)
        #expect(response.status == 400 && response.errorCode == "bad_form", "\(response.body)")
        response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", "just some notes\n"], token: token)
        #expect(response.status == 422, "\(response.body)")
        #expect(
            (response.json["error"] as? [String: Any])?["message"] as? String
                == "upload: not an Apple Health export: neither a zip archive, an XML file, a Health Auto Export JSON payload nor a CSV with a header naming sourceName, startDate, endDate and value"
        )

        // A declared length over the cap: 413 before a byte of the body is read.
        let head = "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
        var answer = try server.raw(
            Array((head + "Content-Type: text/csv\r\nContent-Length: 5000\r\n\r\n").utf8), timeout: 5)
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
        // No length and not chunked.
        answer = try server.raw(Array((head + "Content-Type: text/csv\r\n\r\n").utf8), timeout: 5)
        #expect(answer.hasPrefix("HTTP/1.1 411"), "\(answer)")
        // A chunked body cut at the cap.
        let big = csvHeader + String(repeating: "W,2024-01-01T00:00:00Z,2024-01-01T01:00:00Z,AsleepCore\n", count: 100)
        response = try server.curl(
            "/api/v1/imports",
            ["-H", "Content-Type: text/csv", "-H", "Transfer-Encoding: chunked", "--data-binary", big], token: token)
        #expect(response.status == 413 || response.status == 0, "\(response.status) \(response.body)")
        #expect(server.spoolFiles.isEmpty)

        // One upload may wait (no workers here); the second is 429 with Retry-After.
        let first = csvHeader + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", first], token: token)
        #expect(response.status == 202)
        let second = first + "W,2024-01-02T23:00:00Z,2024-01-03T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", second], token: token)
        #expect(response.status == 429 && response.headers["retry-after"] != nil)

        // A queued import can be cancelled; then it is gone from the queue and the spool.
        let id =
            try #require(try server.curl("/api/v1/imports", token: token).json["imports"] as? [[String: Any]])
            .first?["id"] as? Int
        response = try server.curl("/api/v1/imports/\(id ?? 0)", ["-X", "DELETE"], token: token)
        #expect(response.status == 204)
        #expect(
            try server.curl("/api/v1/imports/\(id ?? 0)", token: token).importObject["state"] as? String == "cancelled")
        #expect(server.spoolFiles.isEmpty)
        response = try server.curl("/api/v1/imports/\(id ?? 0)", ["-X", "DELETE"], token: token)
        #expect(response.status == 409)
    }

    @Test("low spool space is 507; a client that stalls mid-upload is cut off and leaves nothing")
    func spaceAndStalls() throws {
        let server = try ServerProcess(["--min-free", "1000000GiB", "--idle-timeout", "2", "--workers", "0"])
        let token = try Self.user("anna", server)
        var response = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", "a,b\n"], token: token)
        #expect(response.status == 507)
        server.stop()

        let stalling = try ServerProcess(["--idle-timeout", "2", "--workers", "0"], environment: server.environment)
        let started = Date()
        let answer = try stalling.raw(
            Array(
                ("POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\nsourceName,startDate").utf8),
            timeout: 30)
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(!answer.hasPrefix("HTTP/1.1 2"))
        response = try stalling.curl("/api/v1/imports", token: token)
        #expect((response.json["imports"] as? [Any])?.isEmpty == true)
        #expect(stalling.spoolFiles.isEmpty)
        #expect(stalling.logText.contains("aborted"))
    }

    @Test("an upload spooled whole but not queued (the database refused the job) leaves no file in the spool")
    func notQueuedLeavesNoFile() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try Self.user("anna", server)
        let body = Array(AccountServerTests.csv(nights: 20).utf8)
        let head =
            "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: text/csv\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        // Half the body, then the job's table is taken from the server's role, then the rest.
        let answer = try server.raw(
            Array(head.utf8) + body.prefix(body.count / 2), timeout: 30, then: Array(body.dropFirst(body.count / 2))
        ) {
            usleep(300_000)
            #expect(throws: Never.self) {
                let connection = try server.connection()
                defer { connection.close() }
                try connection.execute("REVOKE INSERT ON import_jobs FROM sleepledger_server")
            }
        }
        #expect(answer.hasPrefix("HTTP/1.1 500"), "\(answer.prefix(200))")
        #expect(server.spoolFiles.isEmpty, "\(server.spoolFiles)")
    }

    @Test(
        "X-Forwarded-For is believed only from the trusted proxy; the per-client limit then counts forwarded addresses")
    func trustedProxy() throws {
        let direct = try ServerProcess(["--workers", "0"])
        _ = try direct.curl("/healthz", ["-H", "X-Forwarded-For: 203.0.113.7"])
        // Not from a trusted proxy: X-Forwarded-Proto changes nothing.
        let directToken = try Self.user("zoe", direct)
        let directUpload = try direct.curl(
            "/api/v1/imports",
            [
                "-H", "X-Forwarded-Proto: https", "-H", "Host: evil.example", "-H", "Content-Type: text/csv",
                "--data-binary",
                "sourceName,startDate,endDate,value\nW,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n",
            ], token: directToken)
        #expect(directUpload.headers["location"]?.hasPrefix("http://127.0.0.1:\(direct.port)/") == true)
        direct.stop()
        #expect(direct.logText.contains("127.0.0.1 \"GET /healthz\" 200"))
        #expect(!direct.logText.contains("203.0.113.7"))

        let proxied = try ServerProcess(
            ["--workers", "0", "--trusted-proxy", "127.0.0.1", "--max-per-client", "1", "--idle-timeout", "5"],
            environment: direct.environment)
        let token = try Self.user("anna", proxied)
        // One client behind the proxy holds a connection with a stalled upload...
        let port = proxied.port
        let stalled =
            "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.1\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\n\r\nsource"
        let holder = Thread { _ = try? ServerProcess.rawRequest(Array(stalled.utf8), port: port, timeout: 4) }
        holder.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !proxied.spoolFiles.contains(where: { $0.hasPrefix("incoming-") }), Date() < deadline { usleep(10_000) }
        // ...so its second request is refused, while another client behind the proxy is served.
        let same = try proxied.curl("/healthz", ["-H", "X-Forwarded-For: 198.51.100.1"])
        let other = try proxied.curl("/healthz", ["-H", "X-Forwarded-For: 198.51.100.2"])
        #expect(same.status == 429 && same.headers["retry-after"] != nil)
        #expect(other.status == 200)
        // Without --public-url, the Location of an upload is what the proxy says the client used.
        let upload = try proxied.curl(
            "/api/v1/imports",
            [
                "-H", "X-Forwarded-For: 198.51.100.3", "-H", "X-Forwarded-Proto: https", "-H",
                "Host: sleep.example.org", "-H", "Content-Type: text/csv", "--data-binary",
                "sourceName,startDate,endDate,value\nW,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n",
            ], token: token)
        #expect(upload.status == 202)
        #expect(upload.headers["location"]?.hasPrefix("https://sleep.example.org/api/v1/imports/") == true)
        proxied.stop()
        #expect(proxied.logText.contains("198.51.100.2 \"GET /healthz\" 200"))
    }

    @Test(
        "a form's file name of at most 255 characters but more Unicode scalars is cut to 255 scalars, not refused after the body (issue 20, F10)"
    )
    func longFileNameIsCut() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try Self.user("anna", server)
        let zip = try Self.export(nights: 3, seed: 5)
        defer { try? FileManager.default.removeItem(at: zip) }
        // 200 characters of two scalars each: "e" and a combining acute accent.
        let name = String(repeating: "e\u{301}", count: 200)
        #expect(name.count == 200 && name.unicodeScalars.count == 400)
        let upload = try server.curl(
            "/api/v1/imports", ["-F", "file=@\(zip.path);filename=\(name);type=application/zip"], token: token)
        #expect(upload.status == 202, "\(upload.body)")
        let stored = try #require(upload.importObject["file_name"] as? String)
        #expect(stored.unicodeScalars.count == 255 && name.unicodeScalars.starts(with: stored.unicodeScalars))
    }

    @Test(
        "two users never see each other's imports: another's id answers 404 like a missing one, and each has import 1"
    )
    func isolation() throws {
        let server = try ServerProcess(["--workers", "0"])
        let anna = try Self.user("anna", server)
        let ben = try Self.user("ben", server, scope: "ingest")
        let csv =
            "sourceName,startDate,endDate,value\nW,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", csv], token: anna)
        let id = try #require(upload.importObject["id"] as? Int)
        let missing = try server.curl("/api/v1/imports/999999", token: ben)
        let others = try server.curl("/api/v1/imports/\(id)", token: ben)
        #expect(others.status == 404 && missing.status == 404)
        #expect(others.body == missing.body.replacingOccurrences(of: "999999", with: "\(id)"))
        #expect(try server.curl("/api/v1/imports/\(id)", ["-X", "DELETE"], token: ben).status == 404)
        #expect((try server.curl("/api/v1/imports", token: ben).json["imports"] as? [Any])?.isEmpty == true)
        #expect(try server.curl("/api/v1/imports/\(id)", token: anna).status == 200)
        // Each person's imports are numbered from 1 (issue 20, F13): Ben's first upload is his
        // import 1 too, and that number shows each of them their own.
        let bens = try server.curl(
            "/api/v1/imports",
            [
                "-H", "Content-Type: text/csv", "--data-binary",
                csv.replacingOccurrences(of: "2024-01-0", with: "2024-02-0"),
            ],
            token: ben)
        #expect(bens.status == 202 && id == 1 && bens.importObject["id"] as? Int == 1)
        #expect(bens.headers["location"]?.hasSuffix("/api/v1/imports/1") == true)
        let annasSHA = try server.curl("/api/v1/imports/1", token: anna).importObject["sha256"] as? String
        let bensSHA = try server.curl("/api/v1/imports/1", token: ben).importObject["sha256"] as? String
        #expect(
            annasSHA == upload.importObject["sha256"] as? String && bensSHA == bens.importObject["sha256"] as? String)
        #expect(annasSHA != bensSHA)
        #expect(try server.curl("/api/v1/imports/2", token: ben).status == 404, "past his last number")

        // Ben's ingest token may upload and follow imports, but not read data: 403.
        let forbidden = try server.curl("/api/v1/me", token: ben)
        #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden")
        let me = try server.curl("/api/v1/me", token: anna)
        #expect(me.status == 200)
        #expect(me.json["handle"] as? String == "anna")
        #expect(me.json["time_zone"] as? String == "Europe/Berlin")
        #expect(me.json["last_import_at"] == nil)
    }
}

/// The server and its workers under kills, stops, concurrency and a second server.
@Suite("sleepledger serve under failure", .serialized)
struct ServerFailureTests {
    static let csvHead = "sourceName,startDate,endDate,value\n"

    static func count(_ sql: String, _ server: ServerProcess) throws -> Int {
        let connection = try server.connection()
        defer { connection.close() }
        return try connection.execute(sql).single().int(0) ?? -1
    }

    @Test("a server killed during an import: the next start imports the job once; nothing is duplicated or left")
    func killedDuringImport() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try ServerTests.user("anna", server)
        // Four years of nights: an import long enough to be killed in.
        let zip = try ServerTests.export(nights: 1500, seed: 9)
        defer { try? FileManager.default.removeItem(at: zip) }
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token)
        let id = try #require(upload.importObject["id"] as? Int)
        server.stop()
        // A server with a worker takes it; kill the server while the job runs.
        let importing = try ServerProcess(["--workers", "1"], environment: server.environment, spool: server.spool)
        let connection = try server.connection()
        defer { connection.close() }
        var sawRunning = false
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            let state = try connection.execute("SELECT state FROM import_jobs WHERE id = $1", [.int(id)]).single()
                .string(0)
            if state == "running" {
                sawRunning = true
                break
            }
            if state == "done" { break }
            usleep(2_000)
        }
        importing.stop(SIGKILL)
        #expect(sawRunning)
        let stateAfterKill = try connection.execute("SELECT state FROM import_jobs WHERE id = $1", [.int(id)]).single()
            .string(0)

        let restarted = try ServerProcess(["--workers", "1"], environment: server.environment, spool: server.spool)
        let done = try ServerTests.waitForImport(id, token: token, restarted, seconds: 120)
        #expect(done.importObject["state"] as? String == "done", "\(done.body)")
        if stateAfterKill == "running" { #expect(done.importObject["attempts"] as? Int == 2) }
        #expect(try Self.count("SELECT count(*) FROM imports WHERE status = 'succeeded'", server) == 1)
        let counts = try #require(done.importObject["counts"] as? [String: Any])
        #expect(try Self.count("SELECT count(*) FROM sleep_samples", server) == counts["inserted"] as? Int)
        #expect(server.spoolFiles.isEmpty)
    }

    @Test("a job whose user's import lock is held elsewhere goes back to the queue, and runs once the lock is free")
    func requeuedBehindTheLock() throws {
        var environment = try migratedEnvironment()
        environment["SLEEPLEDGER_IMPORT_LOCK_WAIT"] = "1"
        let server = try ServerProcess(["--workers", "1"], environment: environment)
        let token = try ServerTests.user("anna", server)
        let connection = try server.connection()
        defer { connection.close() }
        let annaID = try #require(try connection.execute("SELECT id FROM users").single().int64(0))
        // An import of anna's own, from the CLI, holds her lock.
        let held = HeldImport(conninfo: server.conninfo, userID: annaID)
        let body = Self.csvHead + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", body], token: token)
        let id = try #require(upload.importObject["id"] as? Int)
        sleep(4)
        let waiting = try server.curl("/api/v1/imports/\(id)", token: token).importObject
        #expect(waiting["state"] as? String == "queued" || waiting["state"] as? String == "running")
        #expect(waiting["error"] == nil)
        _ = try held.finish()
        let done = try ServerTests.waitForImport(id, token: token, server)
        #expect(done.importObject["state"] as? String == "done", "\(done.body)")
        #expect((done.importObject["attempts"] as? Int ?? 99) <= 2)
    }

    @Test("killed during an upload, the next start removes the partial file and queues nothing")
    func killedDuringUpload() throws {
        let server = try ServerProcess(["--workers", "0", "--idle-timeout", "1"])
        let token = try ServerTests.user("anna", server)
        let head =
            "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: text/csv\r\nContent-Length: 100000\r\n\r\n" + Self.csvHead
        // The client keeps its connection open (a stalled upload) while the server dies.
        let port = server.port
        let client = Thread {
            _ = try? ServerProcess.rawRequest(Array(head.utf8), port: port, timeout: 10)
        }
        client.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while server.spoolFiles.isEmpty, Date() < deadline { usleep(10_000) }
        #expect(server.spoolFiles.contains { $0.hasPrefix("incoming-") })
        server.stop(SIGKILL)
        sleep(3)
        try server.launch()
        #expect(server.spoolFiles.isEmpty, "\(server.spoolFiles)")
        #expect(try Self.count("SELECT count(*) FROM import_jobs", server) == 0)
    }

    @Test("SIGTERM lets a running upload finish, refuses new connections, and leaves queued jobs queued")
    func gracefulStop() throws {
        let server = try ServerProcess(["--workers", "0", "--stop-deadline", "20"])
        let token = try ServerTests.user("anna", server)
        let body =
            Self.csvHead + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        let head =
            "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n"
            + "Content-Type: text/csv\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        let half = body.utf8.count / 2
        let pid = server.process.processIdentifier
        let answer = try server.raw(
            Array((head + String(body.prefix(half))).utf8), timeout: 20, then: Array(body.dropFirst(half).utf8),
            between: {
                // Once the upload is under way (its spool file exists), stop the server.
                let deadline = Date(timeIntervalSinceNow: 20)
                while !server.spoolFiles.contains(where: { $0.hasPrefix("incoming-") }), Date() < deadline {
                    usleep(10_000)
                }
                kill(pid, SIGTERM)
                usleep(500_000)
            })
        #expect(answer.hasPrefix("HTTP/1.1 202"), "\(answer)")
        server.process.waitUntilExit()
        // The log is read from a pipe as it comes: its last line may arrive after the exit.
        let logDeadline = Date(timeIntervalSinceNow: 5)
        while !server.logText.contains("sleepledger: stopped"), Date() < logDeadline { usleep(10_000) }
        #expect(server.logText.contains("sleepledger: stopped"))
        #expect(try Self.count("SELECT count(*) FROM import_jobs WHERE state = 'queued'", server) == 1)
        #expect(server.spoolFiles.count == 1)
    }

    @Test("concurrent uploads of several users all import; a second server on the same database shares the queue")
    func concurrencyAndASecondServer() throws {
        let receiving = try ServerProcess(["--workers", "0"])
        let importing = try ServerProcess(
            ["--workers", "2"], environment: receiving.environment, spool: receiving.spool)
        let handles = ["anna", "ben", "cara", "dan"]
        let tokens = try handles.map { try ServerTests.user($0, receiving) }
        let zips = try handles.indices.map { try ServerTests.export(nights: 60, seed: UInt64(20 + $0)) }
        defer { for zip in zips { try? FileManager.default.removeItem(at: zip) } }
        let ids = Mutex<[Int?]>(Array(repeating: nil, count: handles.count))
        DispatchQueue.concurrentPerform(iterations: handles.count) { index in
            let server = index % 2 == 0 ? receiving : importing
            let response = try? server.curl(
                "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + zips[index].path],
                token: tokens[index])
            ids.withLock { $0[index] = response?.importObject["id"] as? Int }
        }
        for (index, id) in ids.withLock({ $0 }).enumerated() {
            let id = try #require(id, "upload of \(handles[index])")
            let done = try ServerTests.waitForImport(id, token: tokens[index], receiving, seconds: 120)
            #expect(done.importObject["state"] as? String == "done", "\(handles[index]): \(done.body)")
        }
        #expect(try Self.count("SELECT count(DISTINCT user_id) FROM sleep_samples", receiving) == handles.count)
        #expect(try Self.count("SELECT count(*) FROM imports WHERE status = 'succeeded'", receiving) == handles.count)
        #expect(importing.logText.contains("import job"))
        #expect(!receiving.logText.contains("import job"))
        #expect(receiving.spoolFiles.isEmpty)
    }
}
