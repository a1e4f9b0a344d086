import Foundation
import LedgerServices
import Testing
import WebPages

@testable import LedgerServer

/// A person's own access through the API, without sockets (issue 20): `GET /api/v1/me`
/// lists their web sessions and tokens, `DELETE /api/v1/me/sessions` ends the other
/// sessions, `DELETE /api/v1/tokens` revokes every token.
@Suite("Access routes without sockets")
struct AccessRoutePlanTests {
    /// The answer to `method path` with `credential`, from the request's head.
    static func answer(
        _ fixture: PipelineFixture, _ method: String, _ path: String, _ credential: Credential,
        address: String = "192.0.2.1"
    ) -> HTTPResponse {
        let request = HTTPRequest(
            method: method, path: path, headers: credential.headers(fixture), clientAddress: address,
            cookies: credential.cookies(fixture))
        guard case .respond(let response) = fixture.routes.plan(request) else { return HTTPResponse(status: 0) }
        return response
    }

    static func object(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    @Test("GET /api/v1/me lists the sessions (this one marked, with the address it was used from) and tokens")
    func listed() throws {
        let fixture = try PipelineFixture()
        let other = try SignInRoutePlanTests.signIn(
            fixture.routes, password: "correct horse battery staple", address: "198.51.100.7")
        let otherCookie = try SignInRoutePlanTests.sessionCookie(other)
        let me = Self.answer(fixture, "GET", "/api/v1/me", .cookie)
        #expect(me.status == 200, "\(me.text)")
        let sessions = try #require(Self.object(me)["sessions"] as? [[String: Any]])
        #expect(sessions.count == 2)
        #expect(sessions.compactMap { $0["current"] as? Bool }.sorted { !$0 && $1 } == [false, true])
        #expect(Set(sessions.compactMap { $0["address"] as? String }) == ["192.0.2.1", "198.51.100.7"])
        #expect(sessions.allSatisfy { Set($0.keys).isSubset(of: SessionKeys.all) })
        let tokens = try #require(Self.object(me)["tokens"] as? [[String: Any]])
        #expect(Set(tokens.compactMap { $0["name"] as? String }) == ["full", "phone"])
        // Never a secret: not the cookies, not a token.
        for secret in [fixture.cookie, otherCookie, fixture.full, fixture.ingest] {
            #expect(!me.text.contains(secret) && !me.text.contains(String(secret.suffix(20))))
        }
        // A token caller's listing marks no session.
        let byToken = Self.object(Self.answer(fixture, "GET", "/api/v1/me", .full))
        #expect((byToken["sessions"] as? [[String: Any]])?.allSatisfy { $0["current"] as? Bool == false } == true)
    }

    enum SessionKeys {
        static let all: Set<String> = ["created_at", "last_used_at", "expires_at", "address", "current"]
    }

    @Test("DELETE /api/v1/me/sessions ends every other session, and with a token every one")
    func endSessions() throws {
        let fixture = try PipelineFixture()
        for address in ["198.51.100.7", "203.0.113.9"] {
            _ = try SignInRoutePlanTests.signIn(
                fixture.routes, password: "correct horse battery staple", address: address)
        }
        // With the cookie it needs the CSRF token, like every other cookie write.
        #expect(Self.answer(fixture, "DELETE", "/api/v1/me/sessions", .cookie).status == 403)
        let ended = Self.answer(fixture, "DELETE", "/api/v1/me/sessions", .cookieWithCSRF)
        #expect(ended.status == 200 && Self.object(ended)["ended_sessions"] as? Int == 2, "\(ended.text)")
        let left = Self.object(Self.answer(fixture, "GET", "/api/v1/me", .cookie))["sessions"] as? [[String: Any]]
        #expect(left?.count == 1 && left?.first?["current"] as? Bool == true)
        // A token has no session of its own to keep: it ends them all.
        let all = Self.answer(fixture, "DELETE", "/api/v1/me/sessions", .full)
        #expect(Self.object(all)["ended_sessions"] as? Int == 1)
        #expect(Self.answer(fixture, "GET", "/api/v1/me", .cookie).status == 401)
    }

    @Test("DELETE /api/v1/tokens revokes every token of the caller (an ingest token may not)")
    func revokeAllTokens() throws {
        let fixture = try PipelineFixture()
        #expect(Self.answer(fixture, "DELETE", "/api/v1/tokens", .ingest).status == 403)
        #expect(Self.answer(fixture, "DELETE", "/api/v1/tokens", .cookie).status == 403)
        let revoked = Self.answer(fixture, "DELETE", "/api/v1/tokens", .cookieWithCSRF)
        #expect(revoked.status == 200 && Self.object(revoked)["revoked_tokens"] as? Int == 2, "\(revoked.text)")
        for credential in [Credential.full, .ingest] {
            #expect(Self.answer(fixture, "GET", "/api/v1/imports", credential).status == 401)
        }
        let tokens = Self.object(Self.answer(fixture, "GET", "/api/v1/me", .cookie))["tokens"] as? [[String: Any]]
        #expect(tokens?.count == 2 && tokens?.allSatisfy { $0["revoked_at"] is String } == true)
        // Nothing left to revoke.
        let again = Self.answer(fixture, "DELETE", "/api/v1/tokens", .cookieWithCSRF)
        #expect(Self.object(again)["revoked_tokens"] as? Int == 0)
    }
}
