import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import Testing

/// The account use cases on the server's role, where row-level security holds every call
/// to the one user.
@Suite("Account service")
struct AccountServiceTests {
    /// The fixture, a session as the server's role, and user `handle`.
    static func setUp(_ handle: String = "anna") throws -> (ServiceFixture, LedgerSession, Int64) {
        let fixture = try ServiceFixture()
        let user = try UserService(session: fixture.session).add(
            handle: handle, timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        return (fixture, try fixture.database.openAsServer(serverURL: serverURL), user.id)
    }

    @Test("deleting waits a bounded time for a running import (busy), and succeeds once it ended")
    func deletionWaitsForAnImport() throws {
        let (fixture, session, annaID) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let account = AccountService(session: session, userID: annaID)
        let held = HeldImport(conninfo: fixture.conninfo, userID: annaID)
        let started = Date()
        let busy = #expect(throws: ServiceError.self) {
            try account.delete(confirmation: "anna", lockWaitSeconds: 1, spoolHost: "here")
        }
        #expect(busy?.kind == .busy)
        #expect(busy?.message == "an import of yours is running; try again once it has ended")
        #expect(Date().timeIntervalSince(started) < 10)
        _ = try held.finish()
        let deletion = try account.delete(confirmation: "anna", lockWaitSeconds: 1, spoolHost: "here")
        #expect(deletion == .deleted(.init(handle: "anna", cancelledImports: 0, removedSpoolFiles: 0)))
        #expect(try UserService(session: fixture.session).list().isEmpty)
    }

    @Test("deleting removes the spool files of the user's jobs on this host only, and nothing without confirmation")
    func deletionRemovesSpoolFiles() throws {
        let (fixture, session, annaID) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        var paths: [String] = []
        for (index, host) in ["here", "elsewhere"].enumerated() {
            let path = try fixture.write("upload-\(index)", "bytes \(index)")
            paths.append(path)
            _ = try ImportQueue(session: session, host: host).enqueue(
                .init(
                    fileName: "upload", contentType: "text/csv", sizeBytes: 7,
                    sha256: String(repeating: "\(index)", count: 64), spoolPath: path),
                userID: annaID, maximumPending: 3)
        }
        let account = AccountService(session: session, userID: annaID)
        for confirmation in [nil, "", "ANNA", "anna "] as [String?] {
            #expect(
                try account.delete(confirmation: confirmation, lockWaitSeconds: 1, spoolHost: "here") == .notConfirmed)
        }
        #expect(try account.tokens().isEmpty)
        let deletion = try account.delete(confirmation: "anna", lockWaitSeconds: 1, spoolHost: "here")
        #expect(deletion == .deleted(.init(handle: "anna", cancelledImports: 2, removedSpoolFiles: 1)))
        #expect(!FileManager.default.fileExists(atPath: paths[0]))
        #expect(FileManager.default.fileExists(atPath: paths[1]))
        let gone = #expect(throws: ServiceError.self) { try account.account() }
        #expect(gone?.kind == .notFound)
    }

    @Test(
        "a page of nights covers at most 366 days; the defaults are 30 days up to the user's today",
        arguments: [
            ("2024-01-01", "2025-06-30", "2024-01-01", "2024-12-31"),
            ("2024-03-01", "2024-03-01", "2024-03-01", "2024-03-01"),
            (nil, "2024-03-31", "2024-03-02", "2024-03-31"),
            // 2025-12-01 01:13 UTC is already 2025-12-01 in Berlin.
            (nil, nil, "2025-11-02", "2025-12-01"),
            ("2025-11-30", nil, "2025-11-30", "2025-12-01"),
        ] as [(String?, String?, String, String)])
    func pages(from: String?, to: String?, first: String, last: String) throws {
        let (fixture, session, annaID) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let page = try AccountService(session: session, userID: annaID).nights(
            from: from.flatMap { LocalDate($0) }, through: to.flatMap { LocalDate($0) }, now: 1_764_551_600)
        #expect(page.first.description == first && page.last.description == last)
        #expect(page.nights.isEmpty && page.next == nil)
    }
}
