import Foundation
import LedgerCrypto
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerServices

/// The account use cases on the server's role, where row-level security holds every call
/// to the one user.
@Suite("Account service")
struct AccountServiceTests {
    /// The fixture, a session as the server's role, and user `handle`.
    static func setUp(_ handle: String = "anna") throws -> (ServiceFixture, LedgerSession, Int64) {
        let fixture = try ServiceFixture()
        let user = try fixture.addUser(handle, zone: "Europe/Berlin")
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

    @Test(
        "a token's stored summary in one round trip: the owner's for a valid token; a wrong, foreign, revoked or malformed token reads nothing and is refused"
    )
    func storedSummaryByToken() throws {
        let (fixture, session, annaID) = try Self.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let users = UserService(session: fixture.session)
        let anna = try users.user(handle: "anna")
        let ben = try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let asOf = LocalDate(year: 2024, month: 3, day: 1)
        let now = Int64(asOf.daysSinceEpoch) * 86_400 + 12 * 3600
        let samples = SleepStreamGenerator(seed: 5).samples(
            from: asOf.adding(days: -20), through: asOf.adding(days: -1))
        _ = try ImportService(session: fixture.session).importInput(
            .path(try fixture.writeZip("export.zip", samples: samples)), for: anna)
        try RollupService(database: fixture.database, settings: RollupSettings(asOf: asOf)).run(now: now)
        let tokens = TokenService(session: fixture.session)
        let full = try tokens.create(for: anna, name: "phone", scope: .full)
        let ingest = try tokens.create(for: anna, name: "watch", scope: .ingest)
        let bens = try tokens.create(for: ben, name: "token", scope: .full)

        for horizon in Horizon.allCases {
            let (caller, lookup) = try AccountService.storedSummaryText(
                sessions: session, token: full.token, horizon: horizon, now: now)
            #expect(caller == TokenService.Caller(userID: annaID, tokenID: full.record.id, scope: .full))
            #expect(
                lookup == (try AccountService(session: session, userID: annaID).storedSummaryText(horizon: horizon)))
            guard case .found = lookup else {
                Issue.record("no stored \(horizon) summary")
                continue
            }
        }
        #expect(try tokens.list(for: anna).first { $0.name == "phone" }?.lastUsedAt == now, "the use is recorded")
        let (scoped, _) = try AccountService.storedSummaryText(
            sessions: session, token: ingest.token, horizon: .weekly, now: now)
        #expect(scoped.scope == .ingest, "the scope is the route's to check")

        try tokens.revoke(for: anna, id: TokenService.idText(ingest.record.id), now: now)
        var wrongSecret = Array(full.token)
        wrongSecret[30] = wrongSecret[30] == "A" ? "B" : "A"
        let annasIDBensSecret = String(full.token.prefix(20)) + String(bens.token.dropFirst(20))
        for presented in [String(wrongSecret), annasIDBensSecret, ingest.token, "sl_nonsense", ""] {
            let refused = #expect(throws: ServiceError.self) {
                try AccountService.storedSummaryText(sessions: session, token: presented, horizon: .weekly, now: now)
            }
            #expect(refused?.kind == .unauthorized, "\(presented.prefix(24))")
            // The reads as the token's owner did not run, before the server's own check: only the
            // look-up's result came back (the owner of Anna's token is known to the session by now).
            guard let (id, hash) = TokenService.presented(presented) else { continue }
            let results = try session.readAsTokenOwner(
                id: id, hash: hash,
                [UserStore.findCurrentStatement, SummaryStore.storedTextStatement(horizon: .weekly)])
            #expect(results.count == 1, "\(presented.prefix(24))")
            #expect(try TokenStore.credentials(in: results[0]).allSatisfy { $0.secretSHA256 != hash })
        }
        // The right secret reads exactly the owner's rows.
        let (id, hash) = try #require(TokenService.presented(full.token))
        let results = try session.readAsTokenOwner(
            id: id, hash: hash, [UserStore.findCurrentStatement, SummaryStore.storedTextStatement(horizon: .weekly)])
        #expect(try UserStore.user(in: results[1])?.handle == "anna" && results[2].rows.count == 1)

        // A restored database may give an id the session remembers to someone else: the
        // remembered owner's check fails, and the reads run as the new owner.
        let admin = fixture.session.connection
        try admin.execute("DELETE FROM api_tokens WHERE id = $1", [.int64(id)])
        try admin.execute("DELETE FROM api_token_owners WHERE token_id = $1", [.int64(id)])
        try TokenStore(connection: admin).add(userID: ben.id, id: id, name: "reused", scope: .full, secretSHA256: hash)
        let reused = try session.readAsTokenOwner(
            id: id, hash: hash, [UserStore.findCurrentStatement, SummaryStore.storedTextStatement(horizon: .weekly)])
        #expect(try UserStore.user(in: reused[1])?.handle == "ben")
        #expect(try TokenStore.credentials(in: reused[0]).map(\.userID) == [ben.id])
    }
}
