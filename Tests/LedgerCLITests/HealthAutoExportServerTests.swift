import ExportFixtures
import Foundation
import LedgerServer
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

/// `POST /api/v1/ingest/health-auto-export` through the real binary: pushes of the iOS
/// app Health Auto Export, spooled, queued and imported like uploads.
@Suite("sleepledger serve: Health Auto Export", .serialized)
struct HealthAutoExportServerTests {
    static let route = "/api/v1/ingest/health-auto-export"

    /// Generated nights as a phone's pushes carry them: no zone, a printed offset.
    static func nights(from first: LocalDate, count: Int, seed: UInt64) -> [SleepSample] {
        SleepStreamGenerator(seed: seed).samples(from: first, through: first.adding(days: count - 1))
            .filter { $0.end > $0.start }
            .map { sample in
                var sample = sample
                sample.timeZoneIdentifier = nil
                sample.printedUTCOffset = 3600
                return sample
            }
    }

    /// Writes a payload to a temporary file for curl.
    static func payloadFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hae-\(UUID().uuidString).json")
        try Data(bytes).write(to: url)
        return url
    }

    /// Pushes a payload file as the app does.
    static func push(
        _ file: URL, token: String?, _ server: ServerProcess, contentType: String = "application/json"
    ) throws -> ServerProcess.Response {
        try server.curl(route, ["-H", "Content-Type: \(contentType)", "--data-binary", "@" + file.path], token: token)
    }

    static func count(_ sql: String, _ server: ServerProcess) throws -> Int {
        let connection = try server.connection()
        defer { connection.close() }
        return try connection.execute(sql).single().int(0) ?? -1
    }

    /// A sample's identity, as the store keys it.
    static func key(_ sample: SleepSample) -> String {
        "\(sample.source)|\(sample.start)|\(sample.end)|\(sample.stage)"
    }

    @Test(
        "a push is queued (202) and imported with an ingest token; the same bytes again answer 200; an overlapping push adds only its new samples"
    )
    func pushes() throws {
        let server = try ServerProcess()
        let token = try ServerTests.user("anna", server, scope: "ingest")
        let first = LocalDate(year: 2024, month: 1, day: 1)
        // The first push: ten nights, 12-hour dates, data before name, heart rate beside.
        let early = Self.nights(from: first, count: 10, seed: 4)
        let earlyFile = try Self.payloadFile(
            HealthAutoExportWriter.bytes(
                samples: early,
                layout: .init(isTwelveHour: true, isDataBeforeName: true, fillerBytes: 3000, escapesText: true)))
        defer { try? FileManager.default.removeItem(at: earlyFile) }
        let pushed = try Self.push(earlyFile, token: token, server)
        #expect(pushed.status == 202, "\(pushed.body) \(server.logText)")
        let id = try #require(pushed.importObject["id"] as? Int)
        #expect(pushed.headers["location"] == "http://127.0.0.1:\(server.port)/api/v1/imports/\(id)")
        #expect(pushed.importObject["file_name"] as? String == "health-auto-export.json")
        #expect(pushed.importObject["content_type"] as? String == "application/json")
        let done = try ServerTests.waitForImport(id, token: token, server)
        #expect(done.importObject["state"] as? String == "done", "\(done.body)")
        let counts = try #require(done.importObject["counts"] as? [String: Any])
        let distinct = Set(early.map(Self.key)).count
        #expect(counts["inserted"] as? Int == distinct)
        #expect(counts["rejected"] as? Int == 0)
        let diagnostics = try #require(done.importObject["diagnostics"] as? [String])
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.hasPrefix("health-auto-export.json:1: data.metrics[0] \"heart_rate\": ") == true)
        #expect(try Self.count("SELECT count(*) FROM imports WHERE kind = 'hae'", server) == 1)
        // The worker rolls the user up after the job is done; the nights are in the user's
        // zone (the payload names none).
        let deadline = Date(timeIntervalSinceNow: 60)
        while try Self.count("SELECT count(*) FROM nights", server) < 8, Date() < deadline { usleep(100_000) }
        #expect(try Self.count("SELECT count(*) FROM nights", server) >= 8)
        #expect(try Self.count("SELECT count(*) FROM nights WHERE time_zone <> 'Europe/Berlin'", server) == 0)

        // The same bytes again (the app retries, or a batch is re-sent): the earlier import.
        let again = try Self.push(earlyFile, token: token, server)
        #expect(again.status == 200)
        #expect(again.importObject["id"] as? Int == id)
        #expect(again.headers["location"] == pushed.headers["location"])

        // The next sync overlaps the first (nights 6 to 14) in other bytes: only what is new is added.
        let late = Self.nights(from: first.adding(days: 5), count: 9, seed: 4)
        let lateFile = try Self.payloadFile(HealthAutoExportWriter.bytes(samples: late))
        defer { try? FileManager.default.removeItem(at: lateFile) }
        let overlapping = try Self.push(lateFile, token: token, server)
        #expect(overlapping.status == 202, "\(overlapping.body)")
        let secondID = try #require(overlapping.importObject["id"] as? Int)
        #expect(secondID != id)
        let secondDone = try ServerTests.waitForImport(secondID, token: token, server)
        #expect(secondDone.importObject["state"] as? String == "done", "\(secondDone.body)")
        let secondCounts = try #require(secondDone.importObject["counts"] as? [String: Any])
        let shared = Set(early.map(Self.key)).intersection(late.map(Self.key)).count
        #expect(shared > 0)
        #expect(secondCounts["duplicate"] as? Int == shared)
        #expect(secondCounts["inserted"] as? Int == Set(late.map(Self.key)).count - shared)
        let union = Set(early.map(Self.key)).union(late.map(Self.key)).count
        #expect(try Self.count("SELECT count(*) FROM sleep_samples", server) == union)
        #expect((try server.curl("/api/v1/imports", token: token).json["imports"] as? [Any])?.count == 2)
        #expect(server.spoolFiles.isEmpty)
        server.stop()
        #expect(server.logText.contains("\"POST \(Self.route)\" 202"))
        #expect(!server.logText.contains(token))
    }

    /// A real payload of the app with "Summarize Data" on (Tests/HealthImportTests/Fixtures/hae).
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HealthImportTests/Fixtures/hae/\(name)")
    }

    @Test(
        "what cannot be imported is answered at once: 422 with the reason, 415, 413, 401, 405; a full token pushes too")
    func refusals() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try ServerTests.user("anna", server, scope: "full")
        for name in ["hae-aggregated-sleep-pre-6.6.2.json", "hae-aggregated-sleep-phases-6.6.2.json"] {
            let response = try Self.push(Self.fixture(name), token: token, server)
            #expect(response.status == 422, "\(name): \(response.body)")
            #expect(response.errorCode == "unreadable_export")
            let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasPrefix("health-auto-export.json:"))
            #expect(message.contains("turn \"Summarize Data\" off in the automation"), "\(message)")
        }
        let texts: [(String, String)] = [
            ("{\"hello\":\"world\"}", "not a Health Auto Export payload: the JSON has no \"data\" object"),
            ("{\"data\":{\"metrics\":[", "malformed JSON: the text ends before its closing ']'"),
            (
                "<HealthData locale=\"en\"></HealthData>",
                "not a Health Auto Export payload (JSON starting with '{') but XML"
            ),
            ("", "the input is empty"),
        ]
        for (text, reason) in texts {
            let file = try Self.payloadFile(Array(text.utf8))
            defer { try? FileManager.default.removeItem(at: file) }
            let response = try Self.push(file, token: token, server)
            #expect(response.status == 422, "\(text): \(response.body)")
            let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(reason), "\(message)")
        }
        #expect(try Self.count("SELECT count(*) FROM import_jobs", server) == 0)
        #expect(server.spoolFiles.isEmpty)

        let valid = try Self.payloadFile(
            HealthAutoExportWriter.bytes(
                samples: Self.nights(from: LocalDate(year: 2024, month: 3, day: 1), count: 2, seed: 1)))
        defer { try? FileManager.default.removeItem(at: valid) }
        for contentType in ["text/csv", "application/xml", "text/plain", "application/x-www-form-urlencoded"] {
            let response = try Self.push(valid, token: token, server, contentType: contentType)
            #expect(response.status == 415, "\(contentType)")
            #expect(response.errorCode == "unsupported_media_type")
        }
        var response = try Self.push(valid, token: nil, server)
        #expect(response.status == 401 && response.headers["www-authenticate"] == "Bearer")
        response = try server.curl(Self.route, token: token)
        #expect(response.status == 405 && response.headers["allow"] == "POST")
        // The full scope may push too; the charset parameter is fine.
        response = try Self.push(valid, token: token, server, contentType: "application/json; charset=utf-8")
        #expect(response.status == 202, "\(response.body)")

        // A declared length over 64 MiB: 413 before a byte of the body is read.
        let head = "POST \(Self.route) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
        let answer = try server.raw(
            Array((head + "Content-Type: application/json\r\nContent-Length: \((64 << 20) + 1)\r\n\r\n{").utf8),
            timeout: 5)
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
        #expect(answer.contains("Health Auto Export payloads are limited to 67108864 bytes"))
        server.stop()

        // Below a lower upload cap of the server, a chunked body is cut at it and nothing is kept.
        let capped = try ServerProcess(["--workers", "0", "--max-upload", "4096"], environment: server.environment)
        let big = try Self.payloadFile(
            HealthAutoExportWriter.bytes(
                samples: Self.nights(from: LocalDate(year: 2024, month: 3, day: 1), count: 5, seed: 2)))
        defer { try? FileManager.default.removeItem(at: big) }
        response = try capped.curl(
            Self.route,
            [
                "-H", "Content-Type: application/json", "-H", "Transfer-Encoding: chunked", "--data-binary",
                "@" + big.path,
            ],
            token: token)
        #expect(response.status == 413 || response.status == 0, "\(response.status) \(response.body)")
        #expect(capped.spoolFiles.isEmpty)
        #expect(try Self.count("SELECT count(*) FROM import_jobs", capped) == 1)
    }

    @Test("the route's plan without sockets: 401 before the body, 405 for other methods")
    func routes() throws {
        let routes = try ServerRoutesTests.routes(stopping: false)
        let request = HTTPRequest(
            method: "POST", path: Self.route, headers: ["content-type": "application/json", "content-length": "10"])
        guard case .respond(let refused) = routes.plan(request) else {
            Issue.record("an unauthenticated push was not answered from its head")
            return
        }
        #expect(refused.status == 401)
        guard case .respond(let notAllowed) = routes.plan(HTTPRequest(method: "PUT", path: Self.route)) else {
            Issue.record("PUT was not answered from its head")
            return
        }
        #expect(notAllowed.status == 405 && notAllowed.header("Allow") == "POST")
    }
}
