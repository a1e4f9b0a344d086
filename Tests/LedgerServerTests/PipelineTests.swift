import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing
import WebPages

@testable import LedgerServer

/// One database with a person who has a password, a web session, a `full` and an
/// `ingest` token; routes over it, with every log line kept.
final class PipelineFixture: Sendable {
    let routes: ServerRoutes
    let full: String
    let ingest: String
    /// The session cookie's value and its CSRF token.
    let cookie: String
    let csrfToken: String
    let log = LogLines()

    static let shared = Result { try PipelineFixture() }

    init() throws {
        let conninfo = try TestDatabase.migrated().conninfo
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        let session = try database.open(access: .writes)
        defer { session.close() }
        let anna = try UserService(session: session).add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        let hashing = PasswordHashing(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1))
        _ = try PasswordService(session: session, hashing: hashing).set(
            handle: "anna", password: "correct horse battery staple", now: 1_764_590_000)
        let signedIn = try WebSessionService(session: session, hashing: hashing).signIn(
            handle: "anna", password: "correct horse battery staple", now: 1_764_590_000)
        cookie = signedIn.cookieValue
        csrfToken = CookieSecret.formToken(for: cookie, purpose: .session) ?? ""
        full = try TokenService(session: session).create(for: anna, name: "full", scope: .full).token
        ingest = try TokenService(session: session).create(for: anna, name: "phone", scope: .ingest).token
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: conninfo)
        let pool = SessionPool(capacity: 4) { try database.openAsServer(serverURL: serverURL) }
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let log = self.log
        routes = ServerRoutes(
            configuration: ServerConfiguration(spoolFolder: spool.path), database: database, pool: pool,
            now: { 1_764_590_100 }, log: { line in log.append(line) })
    }
}

/// Log lines kept for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// How a test request proves who it is.
enum Credential: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case none, full, ingest, cookie, cookieWithCSRF

    var testDescription: String { rawValue }

    func headers(_ fixture: PipelineFixture) -> [String: String] {
        switch self {
        case .none: [:]
        case .full: ["authorization": "Bearer \(fixture.full)"]
        case .ingest: ["authorization": "Bearer \(fixture.ingest)"]
        case .cookie: [:]
        case .cookieWithCSRF: ["x-csrf-token": fixture.csrfToken]
        }
    }

    func cookies(_ fixture: PipelineFixture) -> [String: String] {
        self == .cookie || self == .cookieWithCSRF ? [WebCookie.session: fixture.cookie] : [:]
    }
}

/// Routes that end the fixture's own access when they run (all its tokens, its sessions):
/// a request to one of them gets a fixture of its own, so the shared one keeps working.
let accessEndingRoutes: Set<String> = ["DELETE /api/v1/tokens", "DELETE /api/v1/me/sessions"]

/// The fixture a request to `route` runs on: a new one for a route that ends access, the
/// shared one otherwise.
func routeFixture(for route: Route) throws -> PipelineFixture {
    accessEndingRoutes.contains("\(route.method) \(route.template)")
        ? try PipelineFixture() : try PipelineFixture.shared.get()
}

/// A route's path with its captures filled in.
func concretePath(_ route: Route) -> String {
    if route.template == "/static/{name}" { return WebAssets.stylesheet.path }
    return route.template.replacingOccurrences(of: "{id}", with: "0000000000000001")
}

@Suite("The request pipeline: router and middleware, without sockets")
struct PipelineTests {
    static let table: [(String, String, String)] = [
        ("GET", "/api/v1/imports/7", "found /api/v1/imports/{id} id=7"),
        ("HEAD", "/api/v1/me", "found /api/v1/me"),
        ("PATCH", "/api/v1/imports/1", "405 GET, DELETE /api/v1/imports/{id}"),
        ("PUT", "/sign-in", "405 GET, POST /sign-in"),
        ("GET", "/api/v1/imports/7/x", "404"),
        ("GET", "/wp-login.php", "404"),
        ("GET", "/static/app.css", "found /static/{name} name=app.css"),
    ]

    @Test("the router matches once: the route and its captures, the methods of a path, or nothing", arguments: table)
    func router(method: String, path: String, expected: String) {
        let outcome: String
        switch Router(routes: ServerRoutes.table).match(method: method, path: path) {
        case .found(let route, let captures):
            let values = captures.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            outcome = (["found", route.template] + values).joined(separator: " ")
        case .methodNotAllowed(let allowed, let template):
            outcome = "405 \(allowed.joined(separator: ", ")) \(template)"
        case .notFound:
            outcome = "404"
        }
        #expect(outcome == expected)
    }

    @Test("every route's template is unique per method, and every route answers HEAD only for GET")
    func uniqueRoutes() {
        let keys = ServerRoutes.table.map { "\($0.method) \($0.template)" }
        #expect(Set(keys).count == keys.count)
    }

    /// What a request with `credential` gets from its head on `route`, before any body.
    static func answerFromHead(_ route: Route, _ credential: Credential, _ fixture: PipelineFixture) -> Int? {
        var headers = credential.headers(fixture)
        if route.method != "GET" {
            headers["content-length"] = "2"
            headers["content-type"] = "application/json"
        }
        let request = HTTPRequest(
            method: route.method, path: concretePath(route), headers: headers, cookies: credential.cookies(fixture))
        guard case .respond(let response) = fixture.routes.plan(request) else { return nil }
        return response.status
    }

    @Test("without a credential: API routes 401, pages 303 to sign-in, open routes neither", arguments: [0])
    func withoutCredential(_: Int) throws {
        let fixture = try PipelineFixture.shared.get()
        for route in ServerRoutes.table {
            let status = Self.answerFromHead(route, .none, fixture)
            switch route.access {
            case .token: #expect(status == 401, "\(route.method) \(route.template)")
            case .signedIn: #expect(status == 303, "\(route.method) \(route.template)")
            case .open: #expect(status != 401 && status != 303, "\(route.method) \(route.template)")
            }
        }
    }

    @Test("scopes: an ingest token is refused (403) on every full route and passes on every ingest route")
    func scopes() throws {
        let fixture = try PipelineFixture.shared.get()
        for route in ServerRoutes.apiTable {
            let status = Self.answerFromHead(route, .ingest, fixture)
            switch route.access {
            case .token(.full): #expect(status == 403, "\(route.method) \(route.template)")
            case .token(.ingest): #expect(status != 401 && status != 403, "\(route.method) \(route.template)")
            default: break
            }
        }
    }

    @Test("CSRF: a cookie caller's state-changing API request needs X-CSRF-Token; reads and tokens do not")
    func csrfOnTheAPI() throws {
        for route in ServerRoutes.apiTable where route.access != .open {
            let changes = CSRFProtection.stateChangingMethods.contains(route.method)
            let withoutToken = Self.answerFromHead(route, .cookie, try routeFixture(for: route))
            let withToken = Self.answerFromHead(route, .cookieWithCSRF, try routeFixture(for: route))
            let name = "\(route.method) \(route.template)"
            #expect((withoutToken == 403) == changes, "\(name): \(String(describing: withoutToken))")
            #expect(withToken != 403 && withToken != 401, "\(name): \(String(describing: withToken))")
            if changes {
                let withBearer = Self.answerFromHead(route, .full, try routeFixture(for: route))
                #expect(withBearer != 403 && withBearer != 401, "\(name) with a token")
            }
        }
    }

    @Test("CSRF: every page form posted with the session but a wrong token changes nothing (403 form expired)")
    func csrfOnPages() throws {
        let fixture = try PipelineFixture.shared.get()
        for route in ServerRoutes.pageTable where route.method == "POST" && route.access == .signedIn {
            let isUpload = route.template == WebPaths.upload
            var request = HTTPRequest(
                method: "POST", path: concretePath(route),
                headers: [
                    "content-type": isUpload ? "multipart/form-data; boundary=x" : "application/x-www-form-urlencoded",
                    "content-length": "20",
                ],
                cookies: [WebCookie.session: fixture.cookie])
            request.form = [WebPaths.csrfField: "not-the-token", "confirm_handle": "anna"]
            let response: HTTPResponse
            switch fixture.routes.plan(request) {
            case .form(_, let answer): response = try answer(request)
            case .upload(let receiver, let finish): response = try finish(receiver)
            default:
                Issue.record("\(route.template) answered from its head")
                continue
            }
            #expect(response.status == 403, "\(route.template)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("Form expired"), "\(route.template)")
        }
        // Anna's account is still there: the delete form changed nothing.
        let me = HTTPRequest(method: "GET", path: "/api/v1/me", headers: Credential.full.headers(fixture))
        guard case .respond(let account) = fixture.routes.plan(me) else { return }
        #expect(account.status == 200)
    }

    @Test("every answer of a route with a caller is no-store; open routes' are not forced")
    func personalAnswers() throws {
        let fixture = try PipelineFixture.shared.get()
        for route in ServerRoutes.table where route.method == "GET" {
            let credential: Credential = route.access == .signedIn ? .cookie : .full
            let request = HTTPRequest(
                method: "GET", path: concretePath(route), headers: credential.headers(fixture),
                cookies: credential.cookies(fixture))
            guard case .respond(let response) = fixture.routes.plan(request) else { continue }
            let name = "\(route.template) \(response.status)"
            if route.access != .open { #expect(response.header("Cache-Control") == "no-store", "\(name)") }
            if route.template == "/static/{name}" {
                #expect(response.header("Cache-Control") == WebAssets.cacheControl)
            }
        }
    }
}

@Suite("API answers: no-store and nosniff on every one")
struct APIHeaderTests {
    @Test("every API route's answer, with or without a credential, and the API's 404 and 405, is no-store and nosniff")
    func everyAnswer() throws {
        let fixture = try PipelineFixture.shared.get()
        var requests = try ServerRoutes.apiTable.flatMap { route in
            let own = try routeFixture(for: route)
            return [Credential.none, .full].map { credential in
                (
                    own,
                    HTTPRequest(method: route.method, path: concretePath(route), headers: credential.headers(own))
                )
            }
        }
        requests += [
            (fixture, HTTPRequest(method: "GET", path: "/api/v1/nowhere")),
            (fixture, HTTPRequest(method: "PUT", path: "/healthz")),
        ]
        for (fixture, request) in requests {
            guard case .respond(let response) = fixture.routes.plan(request) else { continue }
            let name = "\(request.method) \(request.path) \(response.status)"
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(name)")
            #expect(response.header("Cache-Control") == "no-store", "\(name)")
            #expect(response.headers.filter { $0.name == "Cache-Control" }.count == 1, "\(name)")
        }
    }
}

@Suite("Error rendering: one place, by audience")
struct ErrorRenderingTests {
    /// Routes whose every database session fails to open, as when PostgreSQL is down.
    static func routesWithoutDatabase(log: @escaping @Sendable (String) -> Void) -> ServerRoutes {
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url("postgresql:///none?host=/nonexistent")),
            migrationsFolder: nil)
        let pool = SessionPool(capacity: 1) {
            throw ServiceError(.unavailable, "could not connect to server at /var/lib/sleepledger/socket")
        }
        return ServerRoutes(
            configuration: ServerConfiguration(spoolFolder: FileManager.default.temporaryDirectory.path),
            database: database, pool: pool, now: { 1_764_590_000 }, log: log)
    }

    static let cases: [(String, String, Bool)] = [
        ("GET", "/api/v1/me", true), ("GET", "/api/v1/summary", true), ("GET", "/api/v1/imports", true),
        ("GET", "/", false), ("GET", "/settings", false),
    ]

    @Test(
        "a database that cannot be reached: 503 with Retry-After and a generic message, the detail only in the log",
        arguments: cases)
    func unavailable(method: String, path: String, isAPI: Bool) {
        let log = LogLines()
        let routes = Self.routesWithoutDatabase { line in log.append(line) }
        let request = HTTPRequest(
            method: method, path: path, headers: ["authorization": "Bearer sl_0000000000000001_abc"],
            cookies: [WebCookie.session: "c2Vzc2lvbi1zZWNyZXQtdGhhdC1pcy1sb25nLWVub3VnaC14eHg"])
        guard case .respond(let response) = routes.plan(request) else {
            Issue.record("\(path) read a body")
            return
        }
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 503)
        #expect(response.header("Retry-After") != nil)
        #expect(!body.contains("/var/lib") && !body.contains("connect"), "\(body)")
        if isAPI {
            #expect(response.problem == HTTPResponse.unavailableMessage)
        } else {
            #expect(body.contains("busy right now"))
        }
        #expect(log.all.contains { $0.contains("/var/lib/sleepledger/socket") })
    }

    @Test("a full session pool is 503 with Retry-After (not 429), like a database that is away")
    func fullPool() throws {
        let conninfo = try TestDatabase.migrated().conninfo
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        let pool = SessionPool(capacity: 1) { try database.open(access: .writes) }
        defer { pool.close() }
        let failure = try pool.withSession { _ in
            // The only session is taken: another call finds the pool full.
            #expect(throws: ServiceError.self) { try pool.withSession(timeout: 0.05) { _ in () } }
        }
        #expect(failure?.kind == .unavailable)
        let response = HTTPResponse(try #require(failure))
        #expect(response.status == 503 && response.header("Retry-After") != nil)
        #expect(response.problem == HTTPResponse.unavailableMessage)
    }

    @Test(
        "other failures keep their kind's status and message; internal ones say nothing of the internals",
        arguments: [
            (ServiceError.Kind.invalidInput, 400, "bad zone"), (.notFound, 404, "no such import"),
            (.busy, 429, "try later"), (.insufficientStorage, 507, "short of space"),
            (.internalFailure, 500, HTTPResponse.internalMessage),
            (.unauthorized, 401, "a valid API token is required"),
        ])
    func kinds(kind: ServiceError.Kind, status: Int, message: String) {
        let response = ErrorRendering.apiAnswer(to: ServiceError(kind, kind == .internalFailure ? "secret" : message))
        #expect(response.status == status)
        #expect(response.problem == message)
    }
}
