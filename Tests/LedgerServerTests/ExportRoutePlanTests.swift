import Foundation
import LedgerServices
import LedgerTestSupport
import Synchronization
import Testing

@testable import LedgerServer

/// `GET /api/v1/me/export` as a function from request to response over
/// ``PipelineFixture``'s database (anna, without sleep data), the streamed body it answers
/// with, and the bound on exports at once.
@Suite("Data export route and streamed bodies")
struct ExportRoutePlanTests {
    @Test("a full token or the session cookie gets the zip, streamed; ingest 403, parameters 400, HEAD no body")
    func route() throws {
        let fixture = try PipelineFixture.shared.get()
        let answer = fixture.answer("GET", "/api/v1/me/export")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/zip")
        // 1_764_590_100 is 2025-12-01 in UTC.
        #expect(answer.header("Content-Disposition") == "attachment; filename=\"sleepledger-export-2025-12-01.zip\"")
        #expect(answer.header("Cache-Control") == "no-store" && answer.body.isEmpty)
        let stream = try #require(answer.stream)
        let entries = try ZipEntries.read(try stream.readAll())
        #expect(
            entries.map(\.name).sorted()
                == ["README.txt", "imports.json", "naps.csv", "nights.csv", "samples.csv"].map {
                    "sleepledger-export/" + $0
                })
        let samples = entries.first { $0.name.hasSuffix("samples.csv") }?.bytes ?? []
        #expect(String(decoding: samples, as: UTF8.self) == "sourceName,startDate,endDate,value,timeZone\r\n")
        let imports = entries.first { $0.name.hasSuffix("imports.json") }?.bytes ?? []
        #expect(String(decoding: imports, as: UTF8.self) == "{\"imports\":[]}\n")

        #expect(fixture.answer("GET", "/api/v1/me/export", token: fixture.ingest).status == 403)
        #expect(fixture.answer("GET", "/api/v1/me/export", query: ["from": "2024-01-01"]).status == 400)
        let head = fixture.answer("HEAD", "/api/v1/me/export")
        #expect(head.status == 200 && head.stream == nil && head.header("Content-Type") == "application/zip")

        let byCookie = fixture.routes.plan(
            HTTPRequest(method: "GET", path: "/api/v1/me/export", cookies: ["sleepledger_session": fixture.cookie]))
        guard case .respond(let cookieAnswer) = byCookie else {
            Issue.record("no answer from the head")
            return
        }
        #expect(cookieAnswer.status == 200, "a GET with the session cookie needs no CSRF token")
        _ = try cookieAnswer.stream?.readAll()
    }

    @Test("one export per person and the most at once; a place comes back when its export ends or is dropped")
    func exportsAtOnce() throws {
        let exports = ExportsInFlight(maximum: 2)
        let anna = try exports.admit(userID: 1)
        #expect(throws: ServiceError.self) { _ = try exports.admit(userID: 1) }
        var ben: ExportsInFlight.Admission? = try exports.admit(userID: 2)
        #expect { _ = try exports.admit(userID: 3) } throws: { ($0 as? ServiceError)?.kind == .busy }
        anna.end()
        anna.end()
        #expect(exports.count == 1)
        _ = try exports.admit(userID: 3)  // dropped at once
        #expect(ben != nil)
        ben = nil
        #expect(exports.count == 0)
    }

    /// Waits up to five seconds for `condition`.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 5)
        while !condition() && Date() < deadline { usleep(1000) }
        return condition()
    }

    @Test("the producer waits while the buffer is full, and the reader gets every byte in order")
    func bounded() throws {
        let written = Atomic(0)
        let body = StreamedBody(capacity: 1000) { write in
            for round in 0..<20 {
                try [UInt8](repeating: UInt8(round), count: 300).withUnsafeBytes { try write($0) }
                written.add(300, ordering: .relaxed)
            }
        }
        try body.awaitStart()
        usleep(50_000)
        #expect(written.load(ordering: .relaxed) <= 1000, "the producer stops at the buffer's capacity")
        let all = try body.readAll()
        #expect(all.count == 6000 && all == (0..<20).flatMap { [UInt8](repeating: UInt8($0), count: 300) })
        #expect(body.sentBytes == 6000)
    }

    struct Refused: Error {}

    @Test(
        "a failure before the first byte is thrown at the start; after it, the body ends failed; cancel stops the producer"
    )
    func failures() throws {
        let early = StreamedBody { _ in throw Refused() }
        #expect(throws: Refused.self) { try early.awaitStart() }

        let reported = Mutex<[String]>([])
        let late = StreamedBody(
            onFailure: { error in reported.withLock { $0.append("\(error)") } },
            produce: { write in
                try [1, 2, 3].withUnsafeBytes { try write($0) }
                throw Refused()
            })
        try late.awaitStart()
        #expect(throws: Refused.self) { _ = try late.readAll() }
        #expect(reported.withLock { $0.count } == 1)

        let stopped = Atomic(false)
        let endless = StreamedBody(
            capacity: 100, onFailure: { _ in reported.withLock { $0.append("cancelled reported") } },
            produce: { write in
                defer { stopped.store(true, ordering: .relaxed) }
                while true { try [0].withUnsafeBytes { try write($0) } }
            })
        try endless.awaitStart()
        endless.cancel()
        #expect(Self.eventually { stopped.load(ordering: .relaxed) })
        #expect(reported.withLock { $0.count } == 1, "a cancel is not a failure")
    }
}
