import Foundation
import LedgerServer
import Testing

/// docs/openapi.json is the API's contract: it names exactly the routes the server has,
/// the server serves it byte for byte, and the checker of the server tests' responses
/// refuses what it does not describe.
@Suite("The OpenAPI document")
struct OpenAPITests {
    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: OpenAPIConformance.documentURL)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Every (METHOD, template) the document has an operation for.
    static func operations() throws -> Set<String> {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        var found: Set<String> = []
        for (template, item) in paths {
            for method in item.keys where method != "parameters" { found.insert("\(method.uppercased()) \(template)") }
        }
        return found
    }

    @Test("every API route of the server is in the document, and every operation of the document is a route")
    func routesMatch() throws {
        let routes = Set(ServerRoutes.apiTable.map { "\($0.method) \($0.template)" })
        let documented = try Self.operations()
        #expect(routes.subtracting(documented).sorted() == [], "routes the document lacks")
        #expect(documented.subtracting(routes).sorted() == [], "operations without a route")
        #expect(ServerRoutes.apiTable.count == routes.count, "a route listed twice")
    }

    /// The document describes the API; the HTML pages are a table of their own, which the
    /// browser tests check. No page may sit where the API is, nor share a template with it.
    @Test("the server's routes are the API's and the pages', and no page is under /api/ or /healthz")
    func pagesApart() {
        let api = Set(ServerRoutes.apiTable.map(\.template))
        let pages = ServerRoutes.table.map(\.template).filter { !api.contains($0) }
        #expect(!pages.isEmpty)
        for template in pages {
            #expect(!template.hasPrefix("/api/") && template != "/healthz", "\(template)")
            #expect(Self.pageTemplate(template) == template, "\(template) is no page route")
        }
        for template in api { #expect(Self.pageTemplate(template) == nil, "\(template)") }
    }

    /// The template of the page route matching `path`, whatever its method.
    static func pageTemplate(_ path: String) -> String? {
        Router(routes: ServerRoutes.pageTable).match(method: "GET", path: path).template
    }

    @Test("it is OpenAPI 3.1, and every operation has its own id, a summary and an error answer")
    func wellFormed() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var ids: [String] = []
        for (template, item) in paths {
            for (method, value) in item where method != "parameters" {
                let operation = try #require(value as? [String: Any], "\(method) \(template)")
                ids.append(operation["operationId"] as? String ?? "")
                #expect(operation["summary"] is String, "\(method) \(template)")
                let responses = operation["responses"] as? [String: Any] ?? [:]
                #expect(responses["default"] != nil, "\(method) \(template) has no default (error) response")
                if template.hasPrefix("/{") { continue }
                let placeholders = template.split(separator: "/").filter { $0.hasPrefix("{") }.count
                let parameters = (item["parameters"] as? [Any] ?? []) + (operation["parameters"] as? [Any] ?? [])
                let inPath = parameters.compactMap { $0 as? [String: Any] }.filter { $0["in"] as? String == "path" }
                #expect(inPath.count == placeholders, "\(method) \(template): path parameters")
            }
        }
        #expect(Set(ids).count == ids.count && !ids.contains(""), "operation ids: \(ids.sorted())")
    }

    @Test("the server serves the document byte for byte at /api/v1/openapi.json, without a token")
    func served() throws {
        let routes = try ServerRoutesTests.routes(stopping: false)
        let response = try #require(
            ServerRoutesTests.response(routes.plan(HTTPRequest(method: "GET", path: "/api/v1/openapi.json"))))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.body == Array(try Data(contentsOf: OpenAPIConformance.documentURL)))
    }

    @Test(
        "the response checker refuses what the document does not describe",
        arguments: [
            ("GET", "/healthz", 200, "application/json", #"{"status":"ok"}"#, true),
            ("GET", "/healthz", 200, "application/json", #"{"status":"fine"}"#, false),
            ("GET", "/healthz", 200, "text/plain", "ok", false),
            ("GET", "/api/v1/me", 200, "application/json", #"{"handle":"anna"}"#, false),
            (
                "GET", "/api/v1/imports/7", 404, "application/json", #"{"error":{"code":"not_found","message":"no"}}"#,
                true
            ),
            ("GET", "/api/v1/imports/7", 404, "application/json", #"{"error":"no"}"#, false),
            ("DELETE", "/api/v1/imports/7", 204, nil, "", true),
            ("GET", "/nowhere", 404, "application/json", #"{"error":{"code":"not_found","message":"no"}}"#, true),
            ("GET", "/nowhere", 200, "application/json", "{}", false),
        ] as [(String, String, Int, String?, String, Bool)])
    func checkerRefuses(
        method: String, path: String, status: Int, contentType: String?, body: String, conforms: Bool
    ) throws {
        let problem = try OpenAPIConformance.shared.problem(
            method: method, path: path, status: status, contentType: contentType, body: body)
        #expect((problem == nil) == conforms, "\(problem ?? "conforms")")
    }
}
