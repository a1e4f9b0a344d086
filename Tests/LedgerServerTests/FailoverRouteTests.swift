import Foundation
import LedgerServices
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerServer

/// Issue 23, item 2: a request whose database is lost to a failover (here, every session
/// fails to open with SQLSTATE 57P03, as a node that is still starting answers).
@Suite("Failover: reads tried again, then 503 with Retry-After")
struct FailoverRouteTests {
    /// Routes whose sessions fail to open as lost, counting the attempts.
    static func routes(attempts: LogLines) -> ServerRoutes {
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url("postgresql:///none?host=/nonexistent")),
            migrationsFolder: nil)
        let pool = SessionPool(capacity: 2, reconnectSeconds: 0.3) {
            attempts.append("open")
            throw ServiceError(PostgresError(.queryFailed, "the database system is starting up", sqlState: "57P03"))
        }
        return ServerRoutes(
            configuration: ServerConfiguration(spoolFolder: FileManager.default.temporaryDirectory.path),
            database: database, pool: pool, now: { 1_764_590_000 }, log: { _ in })
    }

    @Test(
        "a lost database: reads connect again before they give up, writes do not; both 503 with Retry-After",
        arguments: [("GET", "/api/v1/me", true), ("GET", "/api/v1/nights", true), ("POST", "/api/v1/imports", false)])
    func lostDatabase(method: String, path: String, isRead: Bool) {
        let attempts = LogLines()
        let routes = Self.routes(attempts: attempts)
        let request = HTTPRequest(
            method: method, path: path,
            headers: ["authorization": "Bearer sl_0000000000000001_abc", "content-type": "application/zip"])
        guard case .respond(let response) = routes.plan(request) else {
            Issue.record("\(path) read a body")
            return
        }
        #expect(response.status == 503)
        #expect(response.header("Retry-After") != nil)
        let tries = attempts.all.count
        if isRead {
            #expect(tries >= 2, "\(tries)")
        } else {
            #expect(tries == 1)
        }
    }
}
