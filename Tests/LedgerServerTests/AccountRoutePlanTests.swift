import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerServer

/// The account routes as functions from request to response, without a socket, over
/// ``PipelineFixture``'s database: a user `anna` (no sleep data) and two of her tokens.
extension PipelineFixture {
    /// The response to `method path?query` with `body` (sent when the route reads one).
    func answer(
        _ method: String, _ path: String, query: [String: String] = [:], body: String = "", token: String? = nil
    ) -> HTTPResponse {
        var headers = ["authorization": "Bearer \(token ?? full)"]
        if !body.isEmpty { headers["content-length"] = String(body.utf8.count) }
        var request = HTTPRequest(method: method, path: path, query: query, headers: headers)
        switch routes.plan(request) {
        case .respond(let response):
            return response
        case .collect(_, let answer):
            request.body = Array(body.utf8)
            return (try? answer(request)) ?? HTTPResponse(status: 0)
        case .upload(let receiver, _):
            receiver.abandon()
            return HTTPResponse(status: 0)
        case .form:
            return HTTPResponse(status: 0)
        }
    }
}

extension HTTPResponse {
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
    /// `error.code` and `error.message` of an error document.
    var errorInfo: (code: String?, message: String?) {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        return (error?["code"] as? String, error?["message"] as? String)
    }
}

@Suite("Account routes without sockets")
struct AccountRoutePlanTests {
    @Test(
        "bad parameters and bodies: 400 naming the parameter or field, the CLI's messages for settings",
        arguments: [
            ("GET", "/api/v1/summary", ["horizon": "fortnight"], "", "invalid_parameter", "horizon must be one of"),
            ("GET", "/api/v1/summary", ["as_of": "2024-13-01"], "", "invalid_parameter", "as_of must be a date"),
            ("GET", "/api/v1/summary", ["as_of": "1800-01-01"], "", "invalid_parameter", "as_of must be a date"),
            ("GET", "/api/v1/summary", ["horizn": "weekly"], "", "invalid_parameter", "'horizn'"),
            ("GET", "/api/v1/debt", ["horizon": "week"], "", "invalid_parameter", "horizon must be one of"),
            ("GET", "/api/v1/charts/debt.svg", ["as_of": "yesterday"], "", "invalid_parameter", "as_of"),
            ("GET", "/api/v1/charts/duration.svg", ["kind": "x"], "", "invalid_parameter", "'kind'"),
            ("GET", "/api/v1/nights", ["from": "2024-1-1"], "", "invalid_parameter", "from must be a date"),
            ("GET", "/api/v1/nights", ["to": "2200-01-01"], "", "invalid_parameter", "to must be a date"),
            (
                "GET", "/api/v1/nights", ["from": "2024-02-01", "to": "2024-01-01"], "", "invalid_parameter",
                "from 2024-02-01 is after to 2024-01-01"
            ),
            (
                "GET", "/api/v1/nights", ["from": "2099-01-01"], "", "invalid_input",
                "the first wake day 2099-01-01 is after today"
            ),
            ("GET", "/api/v1/me", ["x": "1"], "", "invalid_parameter", "takes no query parameters"),
            ("PATCH", "/api/v1/me", [:], "{}", "bad_body", "send at least one of time_zone"),
            ("PATCH", "/api/v1/me", [:], "[1]", "bad_body", "must be a JSON object"),
            ("PATCH", "/api/v1/me", [:], "{\"handle\":\"x\"}", "bad_body", "unknown field 'handle'"),
            ("PATCH", "/api/v1/me", [:], "{\"target_seconds\":\"8h\"}", "bad_body", "'target_seconds' must be"),
            ("PATCH", "/api/v1/me", [:], "{\"target_seconds\":1.5}", "bad_body", "'target_seconds'"),
            (
                "PATCH", "/api/v1/me", [:], "{\"time_zone\":\"Mars/Olympus\"}", "invalid_input",
                "unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Berlin"
            ),
            (
                "PATCH", "/api/v1/me", [:], "{\"minimum_seconds\":30000}", "invalid_input",
                "target sleep 8h is below the minimum 8h 20m"
            ),
            (
                "PATCH", "/api/v1/me", [:], "{\"target_seconds\":90000}", "invalid_input",
                "target sleep 25h is longer than a day"
            ),
            ("PATCH", "/api/v1/me", ["x": "1"], "{}", "invalid_parameter", "'x'"),
            ("DELETE", "/api/v1/me", [:], "", "confirmation_required", "{\"confirm_handle\": \"<your handle>\"}"),
            ("DELETE", "/api/v1/me", [:], "{\"confirm_handle\":\"ANNA\"}", "confirmation_required", "exactly"),
            ("DELETE", "/api/v1/me", [:], "{\"confirm\":true}", "bad_body", "unknown field 'confirm'"),
            ("POST", "/api/v1/tokens", [:], "{\"scope\":\"admin\"}", "bad_body", "'scope' must be ingest or full"),
            ("POST", "/api/v1/tokens", [:], "{\"name\":\"\"}", "invalid_input", "a token name is 1-64 characters"),
            ("DELETE", "/api/v1/tokens/xyz", [:], "", "invalid_input", "a token id is 16 hexadecimal digits"),
        ] as [(String, String, [String: String], String, String, String)])
    func refusals(
        method: String, path: String, query: [String: String], body: String, code: String, message: String
    ) throws {
        let fixture = try PipelineFixture.shared.get()
        let response = fixture.answer(method, path, query: query, body: body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.errorInfo.code == code, "\(response.text)")
        #expect(response.errorInfo.message?.contains(message) == true, "\(response.text)")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test("without data: the summary, debt and charts are 404 no_summary saying what to do; nights are an empty page")
    func noData() throws {
        let fixture = try PipelineFixture.shared.get()
        for path in ["/api/v1/summary", "/api/v1/debt", "/api/v1/charts/duration.svg", "/api/v1/charts/debt.svg"] {
            let response = fixture.answer("GET", path)
            #expect(response.status == 404 && response.errorInfo.code == "no_summary", "\(path): \(response.text)")
            #expect(response.errorInfo.message?.contains("POST /api/v1/imports") == true)
        }
        // The clock says 2025-12-01 01:13 UTC: in Berlin that day too; the default is 30 days.
        let nights = fixture.answer("GET", "/api/v1/nights")
        #expect(nights.status == 200)
        // Keys come in no particular order: compared as a value (no `next` either).
        let page = try JSONSerialization.jsonObject(with: Data(nights.text.utf8)) as? NSDictionary
        let expected: NSDictionary = [
            "from": "2025-11-02", "handle": "anna", "naps": [Any](), "nights": [Any](), "to": "2025-12-01",
        ]
        #expect(page == expected, "\(nights.text)")
        #expect(nights.text.hasSuffix("}\n"))
    }

    @Test("an ingest token gets 403 on every account route, before any body is read")
    func ingestIsForbidden() throws {
        let fixture = try PipelineFixture.shared.get()
        for route in ServerRoutes.apiTable.filter({ $0.access == .token(.full) }) {
            let path = route.template.replacingOccurrences(of: "{id}", with: "0000000000000001")
            let request = HTTPRequest(
                method: route.method, path: path, headers: ["authorization": "Bearer \(fixture.ingest)"])
            guard case .respond(let response) = fixture.routes.plan(request) else {
                Issue.record("\(route.method) \(route.template) reads a body before refusing an ingest token")
                continue
            }
            #expect(response.status == 403, "\(route.method) \(route.template)")
            #expect(response.errorInfo.code == "forbidden")
        }
    }

    @Test("a body over the cap is refused from its declared length (413)")
    func bodyCap() throws {
        let fixture = try PipelineFixture.shared.get()
        let request = HTTPRequest(
            method: "PATCH", path: "/api/v1/me",
            headers: ["authorization": "Bearer \(fixture.full)", "content-length": String(2 << 20)])
        guard case .respond(let response) = fixture.routes.plan(request) else {
            Issue.record("the body would be read")
            return
        }
        #expect(response.status == 413 && response.errorInfo.code == "too_large")
    }
}
