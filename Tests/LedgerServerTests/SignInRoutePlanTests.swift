import Foundation
import LedgerServer
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing
import WebPages

/// The sign-in pages as functions from request to response, without sockets: cookie
/// flags under each public URL, slowed sign-ins through an injected pause, forms refused
/// from their head.
@Suite("Sign-in pages without sockets")
struct SignInRoutePlanTests {
    static let password = "correct horse battery staple"

    /// The waits a slowed sign-in asked for.
    final class Pauses: Sendable {
        private let seconds = Mutex<[Double]>([])
        func record(_ value: Double) { seconds.withLock { $0.append(value) } }
        var recorded: [Double] { seconds.withLock { $0 } }
    }

    /// Routes over a database where Anna has a password (cheap Argon2id parameters), with
    /// `configure` applied to the configuration and the pause recorded.
    static func routes(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (ServerRoutes, Pauses) {
        let conninfo = try TestDatabase.migrated().conninfo
        let database = LedgerDatabase(
            configuration: DatabaseConfiguration(source: .url(conninfo)),
            migrationsFolder: TestDatabase.migrationsFolder)
        let session = try database.open(access: .writes)
        defer { session.close() }
        try UserService(session: session).add(
            handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        _ = try PasswordService(
            session: session,
            hashing: PasswordHashing(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1))
        ).set(handle: "anna", password: password, now: 1_764_590_000)
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: conninfo)
        let pool = SessionPool(capacity: 2) { try database.openAsServer(serverURL: serverURL) }
        var configuration = ServerConfiguration(spoolFolder: FileManager.default.temporaryDirectory.path)
        configure(&configuration)
        let pauses = Pauses()
        let routes = ServerRoutes(
            configuration: configuration, database: database, pool: pool, now: { 1_764_590_000 },
            pause: { pauses.record($0) })
        return (routes, pauses)
    }

    /// The answer to `request`; a form route gets `request.form` as it is.
    static func answer(_ routes: ServerRoutes, _ request: HTTPRequest) -> HTTPResponse {
        switch routes.plan(request) {
        case .respond(let response): return response
        case .form(_, let answer): return (try? answer(request)) ?? HTTPResponse(status: 0)
        case .collect(_, let answer): return (try? answer(request)) ?? HTTPResponse(status: 0)
        case .upload(let receiver, _):
            receiver.abandon()
            return HTTPResponse(status: 0)
        }
    }

    /// The `Set-Cookie` header for cookie `name`.
    static func setCookie(_ name: String, _ response: HTTPResponse) -> String? {
        response.headers.first { $0.name == "Set-Cookie" && $0.value.hasPrefix(name + "=") }?.value
    }

    /// A sign-in form post with the form's own cookie and token.
    static func signIn(_ routes: ServerRoutes, password: String, address: String = "192.0.2.1") throws -> HTTPResponse {
        let form = answer(routes, HTTPRequest(method: "GET", path: "/sign-in"))
        let cookie = try #require(setCookie("sleepledger_sign_in", form)?.split(separator: ";").first)
        let secret = String(cookie.dropFirst("sleepledger_sign_in=".count))
        return answer(
            routes,
            HTTPRequest(
                method: "POST", path: "/sign-in", headers: ["content-type": "application/x-www-form-urlencoded"],
                clientAddress: address, cookies: ["sleepledger_sign_in": secret],
                form: [
                    "csrf_token": CookieSecret.formToken(for: secret, purpose: .signIn) ?? "", "handle": "anna",
                    "password": password,
                ]))
    }

    @Test(
        "cookies are HttpOnly and SameSite=Strict, and Secure when the public URL is https",
        arguments: [
            ("", false), ("https://sleep.example.org", true), ("HTTPS://sleep.example.org", true),
            ("http://sleep.example.org", false),
        ])
    func secureCookies(publicURL: String, isSecure: Bool) throws {
        let (routes, _) = try Self.routes { $0.publicURL = publicURL }
        let form = Self.answer(routes, HTTPRequest(method: "GET", path: "/sign-in"))
        let signedIn = try Self.signIn(routes, password: Self.password)
        #expect(signedIn.status == 303)
        for cookie in [Self.setCookie("sleepledger_sign_in", form), Self.setCookie("sleepledger_session", signedIn)] {
            let attributes = try #require(cookie).split(separator: ";").dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(attributes.contains("HttpOnly") && attributes.contains("SameSite=Strict"))
            #expect(attributes.contains("Secure") == isSecure, "\(attributes)")
        }
    }

    @Test("slowed sign-ins wait through the pause before the password is checked; then 429 with Retry-After")
    func slowedThenRefused() throws {
        let (routes, pauses) = try Self.routes { $0.signInLimits.pairRefuseAfter = 6 }
        let statuses = try (0..<7).map { _ in try Self.signIn(routes, password: "not the password").status }
        #expect(statuses == [403, 403, 403, 403, 403, 403, 429])
        #expect(pauses.recorded == [1, 2, 4])
        let refused = try Self.signIn(routes, password: Self.password)
        #expect(refused.status == 429 && refused.header("Retry-After") == "900")
        // From another address the person signs in at once.
        #expect(try Self.signIn(routes, password: Self.password, address: "198.51.100.7").status == 303)
        #expect(pauses.recorded == [1, 2, 4])
    }

    /// The session cookie's value a successful sign-in set.
    static func sessionCookie(_ signedIn: HTTPResponse) throws -> String {
        let cookie = try #require(setCookie("sleepledger_session", signedIn)?.split(separator: ";").first)
        return String(cookie.dropFirst("sleepledger_session=".count))
    }

    /// A password-change form post in the session `session` from `address`.
    static func changePassword(
        _ routes: ServerRoutes, session: String, current: String, new: String = "a new horse battery staple",
        address: String = "192.0.2.1"
    ) -> HTTPResponse {
        answer(
            routes,
            HTTPRequest(
                method: "POST", path: WebPaths.password,
                headers: ["content-type": "application/x-www-form-urlencoded"], clientAddress: address,
                cookies: ["sleepledger_session": session],
                form: [
                    "csrf_token": CookieSecret.formToken(for: session, purpose: .session) ?? "",
                    "current_password": current, "new_password": new, "new_password_repeat": new,
                ]))
    }

    @Test("the current password at /settings/password is throttled like sign-in: slowed, then 429 (issue 20, F11)")
    func passwordChangeThrottled() throws {
        let (routes, pauses) = try Self.routes { $0.signInLimits.pairRefuseAfter = 6 }
        let session = try Self.sessionCookie(try Self.signIn(routes, password: Self.password))
        let statuses = (0..<7).map { _ in
            Self.changePassword(routes, session: session, current: "not the password").status
        }
        #expect(statuses == [403, 403, 403, 403, 403, 403, 429])
        #expect(pauses.recorded == [1, 2, 4])
        // The right password is refused too while the account's checks are refused, from
        // any address: only a holder of the account's session makes them.
        for address in ["192.0.2.1", "198.51.100.7"] {
            let refused = Self.changePassword(routes, session: session, current: Self.password, address: address)
            #expect(refused.status == 429 && refused.header("Retry-After") == "900")
            #expect(String(decoding: refused.body, as: UTF8.self).contains("Too many wrong passwords. Try again in"))
        }
    }

    @Test("a right current password clears the account's count: failures do not add up across changes")
    func passwordChangeSuccessClears() throws {
        let (routes, _) = try Self.routes { $0.signInLimits.pairRefuseAfter = 3 }
        let session = try Self.sessionCookie(try Self.signIn(routes, password: Self.password))
        var password = Self.password
        for round in 0..<3 {
            for _ in 0..<2 {
                #expect(Self.changePassword(routes, session: session, current: "not the password").status == 403)
            }
            let new = "new password number \(round)"
            #expect(Self.changePassword(routes, session: session, current: password, new: new).status == 303)
            password = new
        }
    }

    /// A form post of `fields` to `path` in the session `session`, with its CSRF token.
    static func post(_ routes: ServerRoutes, _ path: String, session: String, _ fields: [String: String] = [:])
        -> HTTPResponse
    {
        answer(
            routes,
            HTTPRequest(
                method: "POST", path: path, headers: ["content-type": "application/x-www-form-urlencoded"],
                cookies: ["sleepledger_session": session],
                form: fields.merging([
                    "csrf_token": CookieSecret.formToken(for: session, purpose: .session) ?? ""
                ]) { $1 }))
    }

    /// The settings page as the session `session` sees it, with the notice `done` names.
    static func settings(_ routes: ServerRoutes, session: String, done: String? = nil) -> String {
        String(
            decoding: answer(
                routes,
                HTTPRequest(
                    method: "GET", path: WebPaths.settings, query: done.map { ["done": $0] } ?? [:],
                    cookies: ["sleepledger_session": session])
            ).body, as: UTF8.self)
    }

    @Test(
        "settings: sessions and tokens listed; sign out everywhere else; revoke all; a password change revoking tokens")
    func settingsAccess() throws {
        let (routes, _) = try Self.routes()
        let session = try Self.sessionCookie(try Self.signIn(routes, password: Self.password))
        let other = try Self.sessionCookie(try Self.signIn(routes, password: Self.password, address: "198.51.100.7"))
        let created = Self.post(routes, WebPaths.tokens, session: session, ["name": "phone", "scope": "ingest"])
        #expect(created.status == 201)
        var page = Self.settings(routes, session: session)
        #expect(page.contains("198.51.100.7") && page.contains("(this session)"))
        #expect(!page.contains(session) && !page.contains(other))
        let ended = Self.post(routes, WebPaths.endOtherSessions, session: session)
        #expect(ended.status == 303 && ended.header("Location") == "/settings?done=sessions-ended")
        page = Self.settings(routes, session: session, done: "sessions-ended")
        #expect(!page.contains("198.51.100.7") && page.contains("You are signed out everywhere else."))
        let signedOut = Self.answer(
            routes, HTTPRequest(method: "GET", path: WebPaths.settings, cookies: ["sleepledger_session": other]))
        #expect(signedOut.status == 303 && signedOut.header("Location") == WebPaths.signIn)

        let revoked = Self.post(routes, WebPaths.revokeAllTokens, session: session)
        #expect(revoked.status == 303 && revoked.header("Location") == "/settings?done=tokens-revoked")
        page = Self.settings(routes, session: session)
        #expect(page.components(separatedBy: "<tr class=\"revoked\">").count == 2)
        _ = Self.post(routes, WebPaths.tokens, session: session, ["name": "laptop", "scope": "full"])
        page = Self.settings(routes, session: session)
        #expect(page.components(separatedBy: "<tr class=\"revoked\">").count == 2 && page.contains("laptop"))
        let changed = Self.post(
            routes, WebPaths.password, session: session,
            [
                "current_password": Self.password, "new_password": "another horse battery staple",
                "new_password_repeat": "another horse battery staple", "revoke_tokens": "on",
            ])
        #expect(changed.header("Location") == "/settings?done=password-changed-tokens-revoked")
        page = Self.settings(routes, session: session)
        #expect(page.components(separatedBy: "<tr class=\"revoked\">").count == 3)
    }

    @Test(
        "a page's form must be url-encoded or multipart (415) and at most 16 KiB (413), refused from its head",
        arguments: [
            ("application/json", "10", 415), ("text/plain", "10", 415), (nil, "10", 415),
            ("application/x-www-form-urlencoded", "16385", 413), ("multipart/form-data; boundary=x", "20000", 413),
        ] as [(String?, String, Int)])
    func formsFromTheHead(contentType: String?, length: String, status: Int) throws {
        let (routes, _) = try Self.routes()
        var headers = ["content-length": length]
        if let contentType { headers["content-type"] = contentType }
        guard case .respond(let response) = routes.plan(HTTPRequest(method: "POST", path: "/sign-in", headers: headers))
        else {
            Issue.record("/sign-in read a body it should refuse")
            return
        }
        #expect(response.status == status)
        // A page for signed-in people checks the session first (the middleware), so a form
        // sent without one goes to the sign-in form, before any of its body is read.
        let signOut = routes.plan(HTTPRequest(method: "POST", path: "/sign-out", headers: headers))
        guard case .respond(let redirect) = signOut else {
            Issue.record("/sign-out read a body without a session")
            return
        }
        #expect(redirect.status == 303 && redirect.header("Location") == "/sign-in")
    }

    @Test("every page answer carries the security headers: forms, redirects, refusals")
    func securityHeaders() throws {
        let (routes, _) = try Self.routes()
        let answers = [
            Self.answer(routes, HTTPRequest(method: "GET", path: "/")),
            Self.answer(routes, HTTPRequest(method: "GET", path: "/sign-in")),
            try Self.signIn(routes, password: "not the password"),
            try Self.signIn(routes, password: Self.password),
            Self.answer(
                routes,
                HTTPRequest(
                    method: "POST", path: "/sign-out", headers: ["content-type": "application/x-www-form-urlencoded"],
                    cookies: ["sleepledger_session": "not-a-session"])),
        ]
        #expect(answers.map(\.status) == [303, 200, 403, 303, 303])
        for answer in answers {
            #expect(answer.header("Content-Security-Policy") == HTTPResponse.contentSecurityPolicy)
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
            #expect(answer.header("Referrer-Policy") == "same-origin")
            #expect(answer.header("Cache-Control") == "no-store")
        }
        // A stale session cookie is removed.
        #expect(Self.setCookie("sleepledger_session", answers[4])?.contains("Max-Age=0") == true)
    }

    @Test("the sign-in page is WebPages' SignInView in its layout, and its fields are the ones the route reads")
    func signInViewFields() throws {
        let (routes, _) = try Self.routes()
        let form = Self.answer(routes, HTTPRequest(method: "GET", path: "/sign-in"))
        let html = String(decoding: form.body, as: UTF8.self)
        let cookie = try #require(Self.setCookie("sleepledger_sign_in", form)?.split(separator: ";").first)
        let token = try #require(
            CookieSecret.formToken(for: String(cookie.dropFirst("sleepledger_sign_in=".count)), purpose: .signIn))
        #expect(html == WebLayout.render(SignInView.page(csrfToken: token), signedIn: nil, csrfToken: token))
        let names = Set(html.matches(of: /<input [^>]*name="([a-z_]+)"/).map { String($0.1) })
        #expect(names == ["handle", "password", WebPaths.csrfField])
        #expect(html.contains("action=\"\(WebPaths.signIn)\""))
        // A failed sign-in shows the form again with the reason as an error notice.
        let failed = String(decoding: try Self.signIn(routes, password: "not the password").body, as: UTF8.self)
        #expect(
            failed.contains("<p class=\"notice notice-error\" role=\"alert\">The handle or the password is wrong.</p>"))
        #expect(failed.contains("name=\"handle\" value=\"anna\""))
    }

    @Test("static files: each asset at its hashed path with its type and a year's cache; other names 404")
    func staticAssets() throws {
        let (routes, _) = try Self.routes()
        for asset in WebAssets.all {
            let answer = Self.answer(routes, HTTPRequest(method: "GET", path: asset.path))
            #expect(answer.status == 200, "\(asset.path)")
            #expect(answer.body == asset.bytes, "\(asset.path)")
            #expect(answer.header("Content-Type") == asset.contentType)
            #expect(answer.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
            #expect(answer.header("Content-Security-Policy") == HTTPResponse.contentSecurityPolicy)
            #expect(
                Router(routes: ServerRoutes.table).match(method: "GET", path: asset.path).template == "/static/{name}")
        }
        let stale = WebAssets.stylesheet.path.replacingOccurrences(
            of: WebAssets.stylesheet.hash, with: "0123456789abcdef")
        for path in [stale, "/static/app.css", "/static/nothing.js", "/static/..%2Fopenapi.json"] {
            let answer = Self.answer(routes, HTTPRequest(method: "GET", path: path))
            #expect(answer.status == 404, "\(path)")
            #expect(answer.header("Cache-Control") == "no-store", "\(path)")
            #expect(answer.header("Content-Type") == "text/html; charset=utf-8", "\(path)")
        }
        let post = Self.answer(routes, HTTPRequest(method: "POST", path: WebAssets.stylesheet.path))
        #expect(post.status == 405)
    }
}
