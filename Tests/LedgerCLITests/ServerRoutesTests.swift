import Foundation
import LedgerServer
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Routes are functions from request to response: these run without a socket.
@Suite("Server routes without sockets")
struct ServerRoutesTests {
    static func routes(stopping: Bool) throws -> ServerRoutes {
        let conninfo = try TestDatabase.migrated().conninfo
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: conninfo)
        let pool = SessionPool(capacity: 2) { try database.openAsServer(serverURL: serverURL) }
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        return ServerRoutes(
            configuration: ServerConfiguration(spoolFolder: spool.path), database: database, pool: pool,
            now: { 1_764_590_000 }, isStopping: { stopping })
    }

    static func response(_ plan: RequestPlan) -> HTTPResponse? {
        if case .respond(let response) = plan { return response }
        return nil
    }

    @Test("while stopping, an upload is answered 503 from its head; health still answers")
    func stopping() throws {
        let routes = try Self.routes(stopping: true)
        let upload = HTTPRequest(
            method: "POST", path: "/api/v1/imports",
            headers: ["authorization": "Bearer sl_x", "content-type": "text/csv", "content-length": "100"])
        let refused = try #require(Self.response(routes.plan(upload)))
        #expect(refused.status == 503)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("\"code\":\"stopping\""))
        #expect(Self.response(routes.plan(HTTPRequest(method: "GET", path: "/healthz")))?.status == 200)
        let export = HTTPRequest(method: "GET", path: "/api/v1/me/export", headers: ["authorization": "Bearer sl_x"])
        #expect(Self.response(routes.plan(export))?.status == 503, "no export starts while stopping")
    }

    @Test(
        "routes and methods: 404, 405 with Allow, 401 with WWW-Authenticate",
        arguments: [
            ("GET", "/nowhere", 404, nil), ("GET", "/api/v1/imports/x", 401, nil), ("POST", "/healthz", 405, "GET"),
            ("PATCH", "/api/v1/imports/1", 405, "GET, DELETE"), ("GET", "/api/v1/me", 401, nil),
            ("DELETE", "/api/v1/imports/7", 401, nil),
        ] as [(String, String, Int, String?)])
    func routing(method: String, path: String, status: Int, allow: String?) throws {
        let routes = try Self.routes(stopping: false)
        let response = try #require(Self.response(routes.plan(HTTPRequest(method: method, path: path))))
        #expect(response.status == status)
        #expect(response.header("Allow") == allow)
        if status == 401 { #expect(response.header("WWW-Authenticate") == "Bearer") }
    }
}
