import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Sign-in through the real `sleepledger serve` with curl: the operator's `user passwd`,
/// the form, the cookies and their flags, wrong passwords and throttling, CSRF on forms
/// and on the API, sign-out.
@Suite("sleepledger serve: sign-in, sessions and CSRF", .serialized)
struct SignInServerTests {
    static let password = "correct horse battery staple"

    /// A signed-in browser: its session cookie and the session's CSRF token.
    struct Browser {
        var session: String
        var csrfToken: String
        var cookieHeader: [String] { ["-H", "Cookie: sleepledger_session=\(session)"] }
    }

    /// Sets `handle`'s password with `sleepledger user passwd` reading standard input.
    static func setPassword(_ handle: String, _ password: String, _ environment: [String: String]) throws -> (
        status: Int32, output: String, error: String
    ) {
        try runProcess("sleepledger", ["user", "passwd", handle], environment: environment, input: password + "\n")
    }

    /// Adds `handle` with a password on the server's database.
    static func person(_ handle: String, _ server: ServerProcess) throws {
        let (added, output) = runTool(
            ["user", "add", handle, "--time-zone", "Europe/Berlin"], environment: server.environment)
        #expect(added == .success, "\(output.errorText)")
        let set = try setPassword(handle, password, server.environment)
        #expect(set.status == 0, "\(set.error)")
    }

    /// The value of cookie `name` among `response`'s `Set-Cookie` headers, with its attributes.
    static func cookie(_ name: String, in response: ServerProcess.Response) -> (value: String, attributes: [String])? {
        for header in response.setCookies where header.hasPrefix(name + "=") {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return (String(parts[0].dropFirst(name.count + 1)), Array(parts.dropFirst()))
        }
        return nil
    }

    /// The hidden `csrf_token` of a page.
    static func formToken(_ html: String) -> String? {
        html.firstMatch(of: /name="csrf_token" value="([A-Za-z0-9_-]+)"/).map { String($0.1) }
    }

    /// The sign-in form: its token and the sign-in cookie that goes with it.
    static func signInForm(_ server: ServerProcess) throws -> (token: String, cookie: String) {
        let form = try server.curl("/sign-in")
        #expect(form.status == 200)
        let cookie = try #require(Self.cookie("sleepledger_sign_in", in: form))
        return (try #require(formToken(form.body)), cookie.value)
    }

    /// Posts the sign-in form.
    static func postSignIn(
        _ server: ServerProcess, handle: String, password: String, form: (token: String, cookie: String)
    ) throws -> ServerProcess.Response {
        try server.curl(
            "/sign-in",
            [
                "-H", "Cookie: sleepledger_sign_in=\(form.cookie)", "--data-urlencode", "csrf_token=\(form.token)",
                "--data-urlencode", "handle=\(handle)", "--data-urlencode", "password=\(password)",
            ])
    }

    /// Signs `handle` in through the form and reads the home page's CSRF token.
    static func signIn(_ server: ServerProcess, _ handle: String, password: String = password) throws -> Browser {
        let answer = try postSignIn(server, handle: handle, password: password, form: try signInForm(server))
        #expect(answer.status == 303, "\(answer.body)")
        let session = try #require(cookie("sleepledger_session", in: answer)).value
        let home = try server.curl("/", ["-H", "Cookie: sleepledger_session=\(session)"])
        return Browser(session: session, csrfToken: try #require(formToken(home.body)))
    }

    @Test("user passwd reads the first line of standard input and stores an Argon2id hash with its parameters")
    func passwdFromStandardInput() throws {
        let environment = try migratedEnvironment()
        #expect(runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment).0 == .success)
        let set = try Self.setPassword("ANNA", Self.password, environment)
        #expect(set.status == 0, "\(set.error)")
        #expect(set.output == "set the password of anna\n")
        let connection = try Connection(conninfo: environment["DATABASE_URL"] ?? "")
        defer { connection.close() }
        let stored = try connection.execute("SELECT password_hash FROM user_passwords").single().string(0) ?? ""
        #expect(stored.hasPrefix("$argon2id$v=19$m=65536,t=3,p=1$"), "\(stored)")
        #expect(!stored.contains("horse"))
        // A line end of \r\n is no part of the password; the same password gets a new salt.
        #expect(try Self.setPassword("anna", Self.password + "\r", environment).status == 0)
        let again = try connection.execute("SELECT password_hash FROM user_passwords").single().string(0) ?? ""
        #expect(again != stored && again.hasPrefix("$argon2id$v=19$m=65536,t=3,p=1$"))

        for (input, code, message) in [
            ("short\n", 65, "at least 10 characters"), ("", 65, "no password on standard input"),
            (String(repeating: "x", count: 5000), 65, "longer than 1024 bytes"),
        ] {
            let refused = try runProcess(
                "sleepledger", ["user", "passwd", "anna"], environment: environment, input: input)
            #expect(refused.status == Int32(code), "\(input.prefix(10))")
            #expect(refused.error.contains(message), "\(refused.error)")
            #expect(!refused.error.contains("short"), "the password is never echoed")
        }
        let unknown = try runProcess(
            "sleepledger", ["user", "passwd", "nobody"], environment: environment, input: Self.password + "\n")
        #expect(unknown.status == 66 && unknown.error.contains("no user with handle 'nobody'"))
    }

    @Test(
        "sign in through the form: 303 home with the session cookie's flags, the home page and the API know the person")
    func signIn() throws {
        let server = try ServerProcess()
        try Self.person("anna", server)
        // Not signed in: the home page sends to the form, the API answers 401.
        let away = try server.curl("/")
        #expect(away.status == 303 && away.headers["location"] == "/sign-in")

        let form = try server.curl("/sign-in")
        #expect(form.status == 200)
        #expect(form.headers["content-type"] == "text/html; charset=utf-8")
        #expect(
            form.headers["content-security-policy"]
                == "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        #expect(form.headers["x-content-type-options"] == "nosniff")
        #expect(form.headers["referrer-policy"] == "same-origin")
        #expect(form.headers["cache-control"] == "no-store")
        let signInCookie = try #require(Self.cookie("sleepledger_sign_in", in: form))
        #expect(signInCookie.attributes == ["Path=/sign-in", "Max-Age=3600", "HttpOnly", "SameSite=Strict"])
        #expect(form.body.contains("<label for=\"sign-in-handle\">Handle</label>"))
        #expect(form.body.contains("<label for=\"sign-in-password\">Password</label>"))
        #expect(
            form.body.contains("<form id=\"sign-in-form\" class=\"card narrow\" method=\"post\" action=\"/sign-in\">"))

        // The files the page links are served under their hashed names, cached for a year.
        let linked = form.body.matches(of: /(?:href|src)="(\/static\/[^"]+)"/).map { String($0.1) }
        #expect(linked.count == 2, "the stylesheet and the icon: \(linked)")
        for path in linked {
            let asset = try server.curl(path)
            #expect(asset.status == 200, "\(path)")
            #expect(asset.headers["cache-control"] == "public, max-age=31536000, immutable", "\(path)")
            #expect(asset.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(!asset.body.isEmpty, "\(path)")
        }
        let stylesheet = try #require(linked.first { $0.hasSuffix(".css") })
        #expect(try server.curl(stylesheet).headers["content-type"] == "text/css; charset=utf-8")
        for unknown in ["/static/app.0000000000000000.css", "/static/app.css", "/static/nothing.css"] {
            let missing = try server.curl(unknown)
            #expect(missing.status == 404, "\(unknown)")
            #expect(missing.headers["cache-control"] == "no-store", "\(unknown)")
        }

        let answer = try Self.postSignIn(
            server, handle: "Anna", password: Self.password,
            form: (try #require(Self.formToken(form.body)), signInCookie.value))
        #expect(answer.status == 303, "\(answer.body)")
        #expect(answer.headers["location"] == "/")
        let session = try #require(Self.cookie("sleepledger_session", in: answer))
        #expect(session.value.wholeMatch(of: /[A-Za-z0-9_-]{43}/) != nil)
        #expect(session.attributes == ["Path=/", "Max-Age=2592000", "HttpOnly", "SameSite=Strict"])
        #expect(Self.cookie("sleepledger_sign_in", in: answer)?.attributes.contains("Max-Age=0") == true)

        // A form sent as multipart (a browser's enctype="multipart/form-data") reads the same.
        let multipartForm = try Self.signInForm(server)
        let multipart = try server.curl(
            "/sign-in",
            [
                "-H", "Cookie: sleepledger_sign_in=\(multipartForm.cookie)", "-F", "csrf_token=\(multipartForm.token)",
                "-F", "handle=anna", "-F", "password=\(Self.password)",
            ])
        #expect(multipart.status == 303 && Self.cookie("sleepledger_session", in: multipart) != nil)

        let home = try server.curl("/", ["-H", "Cookie: sleepledger_session=\(session.value)"])
        #expect(home.status == 200)
        #expect(home.body.contains("<span class=\"who\">Signed in as <strong>anna</strong></span>"))
        #expect(home.body.contains("<form class=\"sign-out\" method=\"post\" action=\"/sign-out\">"))
        #expect(home.body.contains("<meta name=\"csrf-token\" content=\""))
        #expect(home.headers["cache-control"] == "no-store")
        let me = try server.curl("/api/v1/me", ["-H", "Cookie: sleepledger_session=\(session.value)"])
        #expect(me.status == 200 && me.json["handle"] as? String == "anna")
        // Signed in, the form sends home.
        let again = try server.curl("/sign-in", ["-H", "Cookie: sleepledger_session=\(session.value)"])
        #expect(again.status == 303 && again.headers["location"] == "/")
        // The session is stored as a hash only.
        let connection = try server.connection()
        defer { connection.close() }
        let stored = try connection.execute("SELECT s::text FROM web_sessions s").rows.compactMap { try $0.string(0) }
        #expect(stored.count == 2 && !stored.joined().contains(session.value))
    }

    @Test("a wrong password gets the form again (403); repeated failures are slowed, then refused with 429")
    func wrongPasswordAndThrottling() throws {
        let server = try ServerProcess(["--sign-in-limits", "1/3,10/20", "--sign-in-lockout", "600"])
        try Self.person("anna", server)
        let form = try Self.signInForm(server)
        var elapsed: [Double] = []
        for _ in 0..<3 {
            let started = Date()
            let answer = try Self.postSignIn(server, handle: "anna", password: "not the password", form: form)
            elapsed.append(Date().timeIntervalSince(started))
            #expect(answer.status == 403)
            #expect(answer.body.contains("The handle or the password is wrong."))
            #expect(answer.body.contains("value=\"anna\""), "the handle is filled in again")
            #expect(Self.cookie("sleepledger_session", in: answer) == nil)
        }
        // One failure free, then 1 s and 2 s (Argon2id's own time comes on top of each).
        #expect(elapsed[1] >= 1 && elapsed[2] >= 2, "\(elapsed)")
        #expect(elapsed[1] < elapsed[2])

        // Refused now, even with the right password, with Retry-After; at once.
        let started = Date()
        let refused = try Self.postSignIn(server, handle: "anna", password: Self.password, form: form)
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(refused.status == 429)
        let retryAfter = try #require(refused.headers["retry-after"].flatMap { Int($0) })
        #expect((590...600).contains(retryAfter))
        #expect(refused.body.contains("Too many failed sign-ins. Try again in 10 minutes."))
        #expect(Self.cookie("sleepledger_session", in: refused) == nil)

        // Never the handle alone: the same address may sign in as someone else.
        try Self.person("ben", server)
        let ben = try Self.postSignIn(server, handle: "ben", password: Self.password, form: form)
        #expect(ben.status == 303)
        #expect(server.logText.contains("\"POST /sign-in\" 429"))
    }

    @Test("CSRF: forms and API changes with the cookie need the session's token (403 without); sign-out ends it")
    func csrfAndSignOut() throws {
        let server = try ServerProcess()
        try Self.person("anna", server)
        try Self.person("ben", server)
        let anna = try Self.signIn(server, "anna")
        let ben = try Self.signIn(server, "ben")
        #expect(anna.csrfToken != ben.csrfToken)

        // The sign-in form without its token, or with another browser's.
        let form = try Self.signInForm(server)
        let noToken = try server.curl(
            "/sign-in",
            [
                "-H", "Cookie: sleepledger_sign_in=\(form.cookie)", "--data-urlencode", "handle=anna",
                "--data-urlencode", "password=\(Self.password)",
            ])
        #expect(noToken.status == 403 && Self.cookie("sleepledger_session", in: noToken) == nil)
        let otherForm = try Self.signInForm(server)
        let mixed = try Self.postSignIn(
            server, handle: "anna", password: Self.password, form: (otherForm.token, form.cookie))
        #expect(mixed.status == 403)

        // A form post without the token changes nothing.
        let signOutWithout = try server.curl("/sign-out", anna.cookieHeader + ["-X", "POST", "--data", ""])
        #expect(signOutWithout.status == 403)
        #expect(signOutWithout.headers["content-security-policy"] != nil)
        let wrong = try server.curl(
            "/sign-out", anna.cookieHeader + ["--data-urlencode", "csrf_token=\(ben.csrfToken)"])
        #expect(wrong.status == 403)
        #expect(try server.curl("/", anna.cookieHeader).status == 200)

        // The API with the cookie: reads need no token; a change needs X-CSRF-Token.
        let change = [
            "-X", "PATCH", "-H", "Content-Type: application/json", "--data-binary", #"{"target_seconds":30000}"#,
        ]
        let refused = try server.curl("/api/v1/me", anna.cookieHeader + change)
        #expect(refused.status == 403 && refused.errorCode == "csrf", "\(refused.body)")
        let otherToken = try server.curl(
            "/api/v1/me", anna.cookieHeader + ["-H", "X-CSRF-Token: \(ben.csrfToken)"] + change)
        #expect(otherToken.status == 403 && otherToken.errorCode == "csrf")
        #expect(try server.curl("/api/v1/me", anna.cookieHeader).json["target_seconds"] as? Int == 28800)
        let accepted = try server.curl(
            "/api/v1/me", anna.cookieHeader + ["-H", "X-CSRF-Token: \(anna.csrfToken)"] + change)
        #expect(accepted.status == 200 && accepted.json["target_seconds"] as? Int == 30000, "\(accepted.body)")
        // A token is never needed for a Bearer token, with or without a cookie beside it.
        let token = try AccountServerTests.user("anna", server)
        let bearer = try server.curl("/api/v1/me", change, token: token)
        #expect(bearer.status == 200)
        let deleteWithout = try server.curl("/api/v1/tokens/0000000000000001", anna.cookieHeader + ["-X", "DELETE"])
        #expect(deleteWithout.status == 403 && deleteWithout.errorCode == "csrf")

        // A signed-in person reaches only their own data: Ben's import is not Anna's.
        let bensToken = try AccountServerTests.user("ben", server)
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", AccountServerTests.csv(nights: 2)],
            token: bensToken)
        let bensImport = try #require(upload.importObject["id"] as? Int)
        #expect(try server.curl("/api/v1/imports/\(bensImport)", anna.cookieHeader).status == 404)
        #expect(try server.curl("/api/v1/imports/\(bensImport)", ben.cookieHeader).status == 200)

        // Sign out with the token: the cookie is removed and the session opens nothing any more.
        let signedOut = try server.curl(
            "/sign-out", anna.cookieHeader + ["--data-urlencode", "csrf_token=\(anna.csrfToken)"])
        #expect(signedOut.status == 303 && signedOut.headers["location"] == "/sign-in")
        #expect(Self.cookie("sleepledger_session", in: signedOut)?.attributes.contains("Max-Age=0") == true)
        let home = try server.curl("/", anna.cookieHeader)
        #expect(home.status == 303 && home.headers["location"] == "/sign-in")
        #expect(try server.curl("/api/v1/me", anna.cookieHeader).status == 401)
        // Ben's session goes on.
        #expect(try server.curl("/api/v1/me", ben.cookieHeader).json["handle"] as? String == "ben")
    }
}
