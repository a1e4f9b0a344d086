import Foundation
import LedgerServer
import LedgerTestSupport
import Testing
import WebPages

/// A person's own pages through the real `sleepledger serve` with curl: every page needs a
/// session, forms need its CSRF token, changes answer `303` to a page saying what was done,
/// and a person reaches nothing of anyone else's. The browser tests (BrowserTests) drive the
/// same pages through Chromium; these check what a browser does not show.
@Suite("sleepledger serve: a person's pages", .serialized)
struct PersonalPageServerTests {
    typealias Browser = SignInServerTests.Browser

    /// `path` as `browser`, or without a session when `browser` is `nil`.
    static func get(_ server: ServerProcess, _ path: String, as browser: Browser?) throws -> ServerProcess.Response {
        try server.curl(path, browser?.cookieHeader ?? [])
    }

    /// Posts a url-encoded form as `browser`, with its CSRF token unless `csrf` is false.
    static func post(
        _ server: ServerProcess, _ path: String, _ fields: [(String, String)], as browser: Browser,
        csrf: Bool = true
    ) throws -> ServerProcess.Response {
        var arguments = browser.cookieHeader + ["-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded"]
        let all = (csrf ? [(WebPaths.csrfField, browser.csrfToken)] : []) + fields
        for (name, value) in all { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        if all.isEmpty { arguments += ["--data", ""] }
        return try server.curl(path, arguments)
    }

    /// The `<h1>` of a page.
    static func heading(_ html: String) -> String? {
        html.firstMatch(of: /<h1[^>]*>([^<]*)<\/h1>/).map { String($0.1) }
    }

    /// Waits until the newest import of `browser` is neither queued nor running; its JSON.
    static func newestImport(_ server: ServerProcess, _ browser: Browser, seconds: Double = 60) throws -> [String: Any]
    {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let listing = try server.curl("/api/v1/imports", browser.cookieHeader)
            let newest = (listing.json["imports"] as? [[String: Any]])?.first ?? [:]
            let state = newest["state"] as? String
            if (state != "queued" && state != "running") || Date() > deadline { return newest }
            usleep(100_000)
        }
    }

    @Test(
        "without a session every page sends to the sign-in form, the upload before any byte is read; unknown pages are HTML 404s, unknown API routes stay JSON"
    )
    func pagesNeedASession() throws {
        let server = try ServerProcess()
        for path in [
            "/", "/?horizon=yearly", WebPaths.upload, WebPaths.imports, WebPaths.nights, WebPaths.nightsCSV,
            WebPaths.settings, WebPaths.tokens,
        ] {
            let answer = try Self.get(server, path, as: nil)
            #expect(answer.status == 303 && answer.headers["location"] == WebPaths.signIn, "\(path): \(answer.status)")
        }
        let zip = try ServerTests.export(nights: 5, seed: 11)
        defer { try? FileManager.default.removeItem(at: zip) }
        let upload = try server.curl(WebPaths.upload, ["-F", "csrf_token=x", "-F", "file=@\(zip.path)"])
        #expect(upload.status == 303 && upload.headers["location"] == WebPaths.signIn)
        for path in [WebPaths.settings, WebPaths.password, WebPaths.deleteAccount, WebPaths.tokens] {
            let answer = try server.curl(path, ["--data", "csrf_token=x"])
            #expect(answer.status == 303 && answer.headers["location"] == WebPaths.signIn, "POST \(path)")
        }
        let page = try server.curl("/no/such/page")
        #expect(page.status == 404 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
        #expect(Self.heading(page.body) == "Not found")
        let api = try server.curl("/api/v1/no-such-route")
        #expect(api.status == 404 && api.errorCode == "not_found")
        let method = try server.curl(WebPaths.imports, ["-X", "DELETE"])
        #expect(method.status == 405 && method.headers["allow"] == "GET")
        #expect(method.headers["content-type"] == "text/html; charset=utf-8")
        #expect(try server.connection().execute("SELECT count(*) FROM import_jobs").single().int(0) == 0)
    }

    @Test(
        "a new person's pages: the dashboard says what to do next, every page renders with its title and navigation, a bad query is a 400 page"
    )
    func emptyPages() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let cases: [(path: String, status: Int, heading: String, contains: String)] = [
            ("/", 200, "Your sleep", "Upload your Apple Health export"),
            ("/?horizon=10y", 200, "Your sleep", "No sleep data yet"),
            ("/?horizon=fortnight", 400, "Not understood", "horizon must be one of"),
            ("/?done=settings-saved", 200, "Your sleep", "Settings saved"),
            ("/?done=%3Cscript%3E", 400, "Not understood", "done must be one of"),
            (WebPaths.upload, 200, "Upload", "8 GiB"),
            (WebPaths.imports, 200, "Imports", "No imports yet"),
            (WebPaths.nights + "?from=2024-01-01&to=2024-01-31", 200, "Nights", "2024-01-31"),
            (WebPaths.nights + "?from=2024-02-01&to=2024-01-01", 400, "Not understood", "is after the last"),
            (WebPaths.nights + "?from=yesterday", 400, "Not understood", "from must be a date"),
            (WebPaths.settings, 200, "Settings", "Europe/Berlin"),
            (WebPaths.tokens, 200, "API tokens", "Summarize Data"),
        ]
        for item in cases {
            let page = try Self.get(server, item.path, as: anna)
            #expect(page.status == item.status, "\(item.path)")
            #expect(page.headers["content-type"] == "text/html; charset=utf-8", "\(item.path)")
            #expect(page.headers["cache-control"] == "no-store", "\(item.path)")
            #expect(Self.heading(page.body) == item.heading, "\(item.path): \(Self.heading(page.body) ?? "none")")
            #expect(page.body.contains(item.contains), "\(item.path) shows \(item.contains)")
            #expect(page.body.contains(">anna<"), "\(item.path) names who is signed in")
            #expect(!page.body.contains("<script>"), "\(item.path)")
        }
    }

    @Test(
        "the upload form without JavaScript: queued with the session's CSRF token (303 to imports), refused without it (403, nothing queued), the same file again is known"
    )
    func uploadWithoutJavaScript() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let zip = try ServerTests.export(nights: 20, seed: 12)
        defer { try? FileManager.default.removeItem(at: zip) }
        func upload(token: String?) throws -> ServerProcess.Response {
            let fields =
                (token.map { ["-F", "csrf_token=\($0)"] } ?? []) + ["-F", "file=@\(zip.path);filename=export.zip"]
            return try server.curl(WebPaths.upload, anna.cookieHeader + fields)
        }
        let forged = try upload(token: "not-the-token")
        #expect(forged.status == 403 && Self.heading(forged.body) == "Form expired")
        #expect(try upload(token: nil).status == 403)
        #expect(try server.connection().execute("SELECT count(*) FROM import_jobs").single().int(0) == 0)
        let spooled = try FileManager.default.contentsOfDirectory(atPath: server.spool.path)
        #expect(spooled.isEmpty, "refused uploads leave nothing in the spool: \(spooled)")

        let queued = try upload(token: anna.csrfToken)
        #expect(queued.status == 303 && queued.headers["location"] == "/imports?done=import-queued", "\(queued.body)")
        let job = try Self.newestImport(server, anna)
        #expect(job["state"] as? String == "done" && job["file_name"] as? String == "export.zip", "\(job)")
        let imports = try Self.get(server, "/imports?done=import-queued", as: anna)
        #expect(imports.body.contains("waits for its import below") && imports.body.contains("export.zip"))
        let inserted = try #require((job["counts"] as? [String: Any])?["inserted"] as? Int)
        #expect(imports.body.contains("<dd>\(inserted)</dd>"), "the counts of the import")

        let again = try upload(token: anna.csrfToken)
        #expect(again.status == 303 && again.headers["location"] == "/imports?done=import-known")
        let notAnExport = try server.curl(
            WebPaths.upload, anna.cookieHeader + ["-F", "csrf_token=\(anna.csrfToken)", "-F", "file=@/etc/hostname"])
        #expect(notAnExport.status == 422 && Self.heading(notAnExport.body) == "Upload", "\(notAnExport.body)")
        #expect(notAnExport.body.contains("notice-error"))
        let notMultipart = try Self.post(server, WebPaths.upload, [("file", "x")], as: anna)
        #expect(notMultipart.status == 415 && notMultipart.body.contains("Choose a file to upload"))
    }

    @Test(
        "settings: saved through the form (303 with a notice, the API sees them), refused with the reason, and never without the CSRF token"
    )
    func settings() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let fields = [
            ("time_zone", "Asia/Tokyo"), ("target_hours", "8"), ("target_minutes", "30"), ("minimum_hours", "6"),
            ("minimum_minutes", ""),
        ]
        let forged = try Self.post(server, WebPaths.settings, fields, as: anna, csrf: false)
        #expect(forged.status == 403)
        let saved = try Self.post(server, WebPaths.settings, fields, as: anna)
        #expect(saved.status == 303 && saved.headers["location"]?.hasPrefix("/settings?done=settings-") == true)
        let me = try server.curl("/api/v1/me", anna.cookieHeader).json
        #expect(me["time_zone"] as? String == "Asia/Tokyo")
        #expect(me["target_seconds"] as? Int == 8 * 3600 + 30 * 60 && me["minimum_seconds"] as? Int == 6 * 3600)
        let page = try Self.get(server, try #require(saved.headers["location"]), as: anna)
        #expect(page.body.contains("Settings saved") && page.body.contains("value=\"Asia/Tokyo\" selected"))

        let refusals: [(fields: [(String, String)], message: String)] = [
            ([("time_zone", "Mars/Olympus"), ("target_hours", "8"), ("minimum_hours", "7")], "Mars/Olympus"),
            ([("target_hours", "24"), ("minimum_hours", "7")], "whole hours (0-23) and minutes (0-59)"),
            ([("target_hours", "8"), ("target_minutes", "60"), ("minimum_hours", "7")], "whole hours"),
            ([("target_hours", "six"), ("minimum_hours", "7")], "whole hours"),
            ([("target_hours", "6"), ("minimum_hours", "7")], "minimum"),
        ]
        for refusal in refusals {
            let answer = try Self.post(server, WebPaths.settings, refusal.fields, as: anna)
            #expect(answer.status == 400, "\(refusal.fields)")
            #expect(answer.body.contains(refusal.message), "\(refusal.fields): \(answer.body)")
        }
        #expect(try server.curl("/api/v1/me", anna.cookieHeader).json["time_zone"] as? String == "Asia/Tokyo")
    }

    @Test(
        "password change: the current one is checked, the two new ones must match, other sessions end and this one stays"
    )
    func passwordChange() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let phone = try SignInServerTests.signIn(server, "anna")
        let new = "a different horse for the battery"
        let cases: [(fields: [(String, String)], status: Int, message: String)] = [
            (
                [("current_password", "wrong password!"), ("new_password", new), ("new_password_repeat", new)], 403,
                "The current password is wrong"
            ),
            (
                [
                    ("current_password", SignInServerTests.password), ("new_password", new),
                    ("new_password_repeat", new + "x"),
                ], 400, "The two new passwords differ"
            ),
            (
                [
                    ("current_password", SignInServerTests.password), ("new_password", "short"),
                    ("new_password_repeat", "short"),
                ], 400, "at least 10 characters"
            ),
        ]
        for item in cases {
            let answer = try Self.post(server, WebPaths.password, item.fields, as: anna)
            #expect(answer.status == item.status && answer.body.contains(item.message), "\(answer.body)")
        }
        #expect(try Self.get(server, "/", as: phone).status == 200, "nothing changed yet")
        let changed = try Self.post(
            server, WebPaths.password,
            [
                ("username", "anna"), ("current_password", SignInServerTests.password), ("new_password", new),
                ("new_password_repeat", new),
            ], as: anna)
        #expect(changed.status == 303 && changed.headers["location"] == "/settings?done=password-changed")
        #expect(try Self.get(server, "/", as: anna).status == 200, "this session stays")
        let other = try Self.get(server, "/", as: phone)
        #expect(other.status == 303 && other.headers["location"] == WebPaths.signIn, "the other session ended")
        let form = try SignInServerTests.signInForm(server)
        let old = try SignInServerTests.postSignIn(
            server, handle: "anna", password: SignInServerTests.password, form: form)
        #expect(old.status == 403)
        #expect(try SignInServerTests.postSignIn(server, handle: "anna", password: new, form: form).status == 303)
    }

    @Test(
        "tokens: made through the page (shown once, works on the API), revoked through it; another person's token id is a 404 and stays valid"
    )
    func tokens() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        try SignInServerTests.person("ben", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let ben = try SignInServerTests.signIn(server, "ben")
        #expect(
            try Self.post(server, WebPaths.tokens, [("name", "phone"), ("scope", "full")], as: anna, csrf: false)
                .status == 403)
        #expect(try Self.post(server, WebPaths.tokens, [("name", "phone"), ("scope", "root")], as: anna).status == 400)
        let created = try Self.post(server, WebPaths.tokens, [("name", "phone"), ("scope", "full")], as: anna)
        #expect(created.status == 201)
        let token = try #require(created.body.firstMatch(of: /sl_[0-9a-f]{16}_[A-Za-z0-9_-]+/).map { String($0.0) })
        #expect(try server.curl("/api/v1/me", token: token).json["handle"] as? String == "anna")
        let id = String(token.dropFirst(3).prefix(16))
        let listed = try Self.get(server, WebPaths.tokens, as: anna)
        #expect(listed.body.contains(id) && !listed.body.contains(token), "the secret is shown only once")
        #expect(listed.body.contains("http://127.0.0.1:\(server.port)/api/v1/ingest/health-auto-export"))

        let stranger = try Self.post(server, WebPaths.revokeToken(id), [], as: ben)
        #expect(stranger.status == 404 && Self.heading(stranger.body) == "Not found")
        #expect(try server.curl("/api/v1/me", token: token).status == 200)
        #expect(!(try Self.get(server, WebPaths.tokens, as: ben).body.contains(id)))
        #expect(try Self.post(server, WebPaths.revokeToken(id), [], as: anna, csrf: false).status == 403)
        let revoked = try Self.post(server, WebPaths.revokeToken(id), [], as: anna)
        #expect(revoked.status == 303 && revoked.headers["location"] == "/tokens?done=token-revoked")
        #expect(try server.curl("/api/v1/me", token: token).status == 401)
        #expect(try Self.post(server, WebPaths.revokeToken("zz"), [], as: anna).status == 404)
    }

    @Test(
        "nights: the page and the CSV show the person's own nights of a range, the CSV the whole range past a page's 366 days"
    )
    func nightsAndCSV() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        try SignInServerTests.person("ben", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        let ben = try SignInServerTests.signIn(server, "ben")
        let zip = try ServerTests.export(nights: 450, seed: 13)
        defer { try? FileManager.default.removeItem(at: zip) }
        let queued = try server.curl(
            WebPaths.upload, anna.cookieHeader + ["-F", "csrf_token=\(anna.csrfToken)", "-F", "file=@\(zip.path)"])
        #expect(queued.status == 303)
        #expect(try Self.newestImport(server, anna)["state"] as? String == "done")
        // The rollup after the import stores the nights.
        let deadline = Date(timeIntervalSinceNow: 60)
        while try server.curl("/api/v1/me", anna.cookieHeader).json["last_rollup_at"] as? String == nil,
            Date() < deadline
        {
            usleep(100_000)
        }
        let range = "?from=2024-01-01&to=2025-12-31"
        let api = try server.curl("/api/v1/nights" + range, anna.cookieHeader).json
        let firstPage = try #require(api["nights"] as? [[String: Any]])
        #expect(!firstPage.isEmpty && api["next"] is String)

        let page = try Self.get(server, WebPaths.nights + range, as: anna)
        #expect(page.status == 200 && page.body.contains("A page shows at most 366 days"))
        for night in firstPage.prefix(3) {
            #expect(page.body.contains(try #require(night["wake_day"] as? String)))
        }
        let csv = try Self.get(server, WebPaths.nightsCSV + range, as: anna)
        #expect(csv.status == 200 && csv.headers["content-type"] == NightsView.csvContentType)
        #expect(
            csv.headers["content-disposition"] == "attachment; filename=\"nights-2024-01-01-to-2025-12-31.csv\"")
        let rows = csv.body.split(whereSeparator: \.isNewline)
        #expect(rows.first?.hasPrefix("wake_day,") == true, "\(rows.first ?? "")")
        // Every stored night of the range, past the first page: as many as the API's pages hold.
        var count = firstPage.count
        var next = api["next"] as? String
        while let url = next {
            let more = try server.curl(
                String(url.dropFirst("http://127.0.0.1:\(server.port)".count)), anna.cookieHeader)
            count += (more.json["nights"] as? [[String: Any]])?.count ?? 0
            next = more.json["next"] as? String
        }
        #expect(count > 366 && rows.count == count + 1, "\(rows.count) rows for \(count) nights")
        // Ben sees none of them.
        let bens = try Self.get(server, WebPaths.nightsCSV + range, as: ben)
        #expect(bens.body.split(whereSeparator: \.isNewline).count == 1)
        #expect(
            !(try Self.get(server, WebPaths.nights + range, as: ben).body.contains(
                firstPage[0]["wake_day"] as? String ?? "-")))
    }

    @Test("deleting the account: the handle must be typed exactly; then every row is gone and the session with it")
    func deleteAccount() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let anna = try SignInServerTests.signIn(server, "anna")
        #expect(
            try Self.post(server, WebPaths.deleteAccount, [("confirm_handle", "anna")], as: anna, csrf: false)
                .status == 403)
        let wrong = try Self.post(server, WebPaths.deleteAccount, [("confirm_handle", "ann")], as: anna)
        #expect(wrong.status == 400 && wrong.body.contains("nothing was deleted"))
        let deleted = try Self.post(server, WebPaths.deleteAccount, [("confirm_handle", "anna")], as: anna)
        #expect(deleted.status == 200 && Self.heading(deleted.body) == "Account deleted")
        #expect(SignInServerTests.cookie("sleepledger_session", in: deleted)?.value == "")
        let connection = try server.connection()
        for table in ["users", "user_passwords", "web_sessions"] {
            #expect(try connection.execute("SELECT count(*) FROM \(table)").single().int(0) == 0, "\(table)")
        }
        let after = try Self.get(server, "/", as: anna)
        #expect(after.status == 303 && after.headers["location"] == WebPaths.signIn)
    }
}
