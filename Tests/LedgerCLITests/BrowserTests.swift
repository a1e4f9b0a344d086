import ExportFixtures
import Foundation
import LedgerStore
import PostgresClient
import SleepCore
import SleepFixtures
import Testing
import WebPages

/// The web pages in a real browser: headless Chromium against the real server and
/// database, one browser session per script (BrowserHarness, Tests/Browser).
@Suite("Browser: the web app", .serialized)
struct BrowserTests {
    /// The policy every page must be sent with, as written here (not read from the server).
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    /// The pages a signed-in person visits.
    static let pages = ["/", "/upload", "/imports", "/nights", "/settings", "/tokens"]

    /// The screenshots that go into docs/images when `SLEEPLEDGER_SCREENSHOTS_TO_DOCS=1`.
    static let documentedScreenshots = ["dashboard-1280", "dashboard-375", "upload-1280", "upload-375"]

    @Test("sign in through the form, see the signed-in page with no CSP violation in the console, sign out")
    func signIn() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let run = try BrowserHarness.run(
            "sign_in.py", server: server, handle: "anna", password: SignInServerTests.password)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("browser test passed"), "\(run.output)")
        for name in ["sign-in-1280", "sign-in-375", "home-1280", "home-375"] {
            let data = try Data(contentsOf: run.screenshots.appendingPathComponent(name + ".png"))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name).png is a PNG")
        }
        // What the browser did, as the server saw it.
        #expect(server.logText.contains("\"POST /sign-in\" 403"))
        #expect(server.logText.contains("\"POST /sign-in\" 303"))
        #expect(server.logText.contains("\"PATCH /api/v1/me\" 403"))
        #expect(server.logText.contains("\"POST /sign-out\" 303"))
        #expect(server.logText.contains("\"GET \(WebAssets.stylesheet.path)\" 200"))
    }

    @Test(
        """
        upload an export through the upload page to 100% and done; the dashboard of every horizon shows what \
        sleepledger-admin summary says, with other charts for each and under 100 KB; the nights CSV is the admin's; \
        the settings page's download holds every stored sample; every page has the CSP header, no CSP violation, labelled fields and fits 375 px; sign-out ends the session
        """)
    func uploadAndDashboard() throws {
        let server = try ServerProcess()
        try SignInServerTests.person("anna", server)
        let export = try Self.export(nights: 90, seed: 5)
        defer { try? FileManager.default.removeItem(at: export.url) }
        let range = (from: export.lastWakeDay.adding(days: -13), to: export.lastWakeDay)
        let run = try BrowserHarness.run(
            "dashboard.py", server: server, handle: "anna", password: SignInServerTests.password,
            arguments: ["--export", export.url.path, "--from", "\(range.from)", "--to", "\(range.to)"],
            timeout: 300)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("browser test passed"), "\(run.output)")

        // The dashboard's figures, formatted here from the admin tool's summary JSON.
        #expect(run.reports("default-horizon").first as? String == "weekly", "the dashboard opens on the week")
        let shown = run.reports("dashboard").compactMap { $0 as? [String: Any] }
        #expect(shown.map { $0["horizon"] as? String } == Horizon.allCases.map(\.rawValue), "\(run.output)")
        for figures in shown {
            let horizon = figures["horizon"] as? String ?? ""
            let expected = Self.dashboardFigures(try Self.adminSummary("anna", horizon: horizon, server))
            #expect(expected["last_night"] != nil, "the generated export has last night")
            var actual = figures.compactMapValues { $0 as? String }
            actual["horizon"] = nil
            #expect(actual == expected, "\(horizon)")
        }

        // The CSV the browser's session downloaded is the admin tool's, one row a night.
        let downloaded = try String(contentsOf: run.screenshots.appendingPathComponent("nights.csv"), encoding: .utf8)
        let admin = try Self.admin(
            ["nights", "anna", "--from", "\(range.from)", "--to", "\(range.to)", "--format", "csv"], server)
        #expect(parseCSV(downloaded) == parseCSV(admin))
        let days = (0...13).map { "\(range.from.adding(days: $0))" }
        #expect(parseCSV(downloaded).dropFirst().map { $0.first ?? "" } == days, "a night for each of 14 days")

        // "Download all my data" from the settings page: the script compared its samples with
        // the import's count; here, with the admin tool's export of the same account.
        let exported = try #require(run.reports("export").first as? [String: Any], "\(run.output)")
        let zip = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: zip) }
        let adminExport = try Self.admin(["export", "anna", "--output", zip.path], server)
        #expect(adminExport.contains("Wrote the data of anna"), "\(adminExport)")
        #expect(adminExport.contains(" \(exported["samples"] as? Int ?? -1) samples,"), "\(adminExport)")

        try Self.checkScreenshots(run, names: Self.documentedScreenshots)

        // Every page carries the security headers (a new session: the script signed out).
        let anna = try SignInServerTests.signIn(server, "anna")
        for path in Self.pages + ["/nights?from=\(range.from)&to=\(range.to)"] {
            let page = try server.curl(path, anna.cookieHeader)
            #expect(page.status == 200, "\(path)")
            #expect(page.headers["content-security-policy"] == Self.contentSecurityPolicy, "\(path)")
            #expect(page.headers["content-type"] == "text/html; charset=utf-8", "\(path)")
            #expect(page.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(page.headers["cache-control"] == "no-store", "\(path)")
        }
        let missing = try server.curl("/no/such/page", anna.cookieHeader)
        #expect(missing.status == 404 && missing.headers["content-security-policy"] == Self.contentSecurityPolicy)
        #expect(missing.headers["content-type"] == "text/html; charset=utf-8")

        // What the browser did, as the server saw it.
        #expect(server.logText.contains("\"POST /api/v1/imports\" 202"))
        #expect(server.logText.contains("\"GET /nights.csv\" 200"))
        #expect(server.logText.contains("\"GET /api/v1/me/export\" 200"))
        #expect(server.logText.contains("\"POST /sign-out\" 303"))
    }

    @Test(
        """
        a second person sees none of the first person's data and gets 404 for their import, token and charts; \
        forms without the CSRF token are refused (403) and change nothing; five wrong passwords are slowed, then \
        refused (429)
        """)
    func secondPerson() throws {
        let server = try ServerProcess(["--sign-in-limits", "3/5,10/50"])
        try SignInServerTests.person("anna", server)
        try SignInServerTests.person("ben", server)
        let token = try ServerTests.user("anna", server)
        let tokenID = String(token.split(separator: "_")[1])
        let export = try Self.export(nights: 30, seed: 6)
        defer { try? FileManager.default.removeItem(at: export.url) }
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: application/zip", "--data-binary", "@" + export.url.path],
            token: token)
        #expect(upload.status == 202, "\(upload.body)")
        let importID = try #require(upload.importObject["id"] as? Int)
        let imported = try ServerTests.waitForImport(importID, token: token, server)
        #expect(imported.importObject["state"] as? String == "done", "\(imported.body)")

        let run = try BrowserHarness.run(
            "isolation.py", server: server, handle: "ben", password: SignInServerTests.password,
            arguments: [
                "--other-handle", "anna", "--other-password", SignInServerTests.password, "--other-import",
                "\(importID)", "--other-token", tokenID, "--from", "\(export.firstWakeDay)", "--to",
                "\(export.lastWakeDay)",
            ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("browser test passed"), "\(run.output)")

        // Anna's token and import are as they were.
        #expect(try server.curl("/api/v1/me", token: token).json["handle"] as? String == "anna")
        #expect(try server.curl("/api/v1/imports/\(importID)", token: token).importObject["state"] as? String == "done")
        // Ben made exactly the token the form with its CSRF token asked for, and still exists.
        let ben = try SignInServerTests.signIn(server, "ben")
        let tokens = try server.curl("/api/v1/tokens", ben.cookieHeader).json["tokens"] as? [[String: Any]] ?? []
        #expect(tokens.map { $0["name"] as? String } == ["phone"])

        for line in [
            "\"GET /api/v1/imports/\(importID)\" 404", "\"DELETE /api/v1/imports/\(importID)\" 404",
            "\"DELETE /api/v1/tokens/\(tokenID)\" 404", "\"POST /tokens/\(tokenID)/revoke\" 404",
            "\"POST /tokens\" 403", "\"POST /tokens\" 201", "\"POST /settings/delete\" 403", "\"POST /sign-in\" 429",
        ] {
            #expect(server.logText.contains(line), "\(line)")
        }
    }

    // MARK: Helpers

    /// A generated export.zip of `nights` nights, the last waking yesterday in Europe/Berlin
    /// (anna's zone), so the rollup's summary of today has last night; every night is there
    /// (no missing night, the watch always worn) and at home (no trip).
    static func export(nights: Int, seed: UInt64) throws -> (url: URL, firstWakeDay: LocalDate, lastWakeDay: LocalDate)
    {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let today = LocalTime.localDate(of: Int64(Date().timeIntervalSince1970), in: zone)
        let lastEvening = today.adding(days: -2)
        let firstEvening = lastEvening.adding(days: -(nights - 1))
        var configuration = SleepStreamConfiguration()
        configuration.missingNightProbability = 0
        configuration.watchNightProbability = 1
        configuration.yearlyTripTimeZoneIdentifier = nil
        let samples = SleepStreamGenerator(seed: seed, configuration: configuration).samples(
            from: firstEvening, through: lastEvening)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString).zip")
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: seed), toPath: url.path)
        return (url, firstEvening.adding(days: 1), lastEvening.adding(days: 1))
    }

    /// What `sleepledger-admin` prints for `arguments`, run as its own process on the
    /// server's database as the read-only role.
    static func admin(_ arguments: [String], _ server: ServerProcess) throws -> String {
        var environment = server.environment
        environment["SLEEPLEDGER_ADMIN_DATABASE_URL"] = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: server.conninfo)
        let result = try runProcess("sleepledger-admin", arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return result.output
    }

    /// `sleepledger-admin summary HANDLE --horizon H --format json`, parsed.
    static func adminSummary(_ handle: String, horizon: String, _ server: ServerProcess) throws -> [String: Any] {
        let text = try admin(["summary", handle, "--horizon", horizon, "--format", "json"], server)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// The dashboard's figures as the dashboard writes them, from a summary's JSON: debt and
    /// last night's sleep in hours and minutes rounded to the minute (`7h 25m`, `45m`, `8h`),
    /// the severity capitalised, the score and its grade, last night's wake day and its bed
    /// and wake clock times (`HH:MM` of the local times).
    static func dashboardFigures(_ summary: [String: Any]) -> [String: String] {
        let debt = summary["debt"] as? [String: Any] ?? [:]
        let score = summary["score"] as? [String: Any] ?? [:]
        var figures: [String: String] = [
            "as_of": summary["as_of"] as? String ?? "?",
            "debt": hoursAndMinutes(debt["debt_seconds"] as? Int ?? -1),
            "severity": (debt["severity"] as? String ?? "?").capitalized,
            "score": "\(score["overall"] as? Int ?? -1)",
            "grade": score["grade"] as? String ?? "?",
        ]
        if let last = summary["last_night"] as? [String: Any] {
            figures["last_night"] = hoursAndMinutes(last["asleep_seconds"] as? Int ?? -1)
            figures["last_night_wake_day"] = last["wake_day"] as? String
            figures["last_night_bedtime"] = clock(last["bedtime_local"] as? String ?? "")
            figures["last_night_wake"] = clock(last["wake_local"] as? String ?? "")
        }
        return figures
    }

    /// Seconds as hours and minutes, rounded to the nearest minute: `7h 25m`, `8h`, `45m`.
    static func hoursAndMinutes(_ seconds: Int) -> String {
        let minutes = (abs(seconds) + 30) / 60
        let sign = seconds < 0 ? "-" : ""
        switch (minutes / 60, minutes % 60) {
        case (0, let rest): return "\(sign)\(rest)m"
        case (let hours, 0): return "\(sign)\(hours)h"
        case (let hours, let rest): return "\(sign)\(hours)h \(rest)m"
        }
    }

    /// `HH:MM` of a `YYYY-MM-DDTHH:MM:SS` local time.
    static func clock(_ local: String) -> String {
        guard let time = local.split(separator: "T").last, local.contains("T") else { return "?" }
        return String(time.prefix(5))
    }

    /// The screenshots `names` are PNGs of the browser's width (1280 or 375 px, from their
    /// names); copied into docs/images when `SLEEPLEDGER_SCREENSHOTS_TO_DOCS=1`.
    static func checkScreenshots(_ run: BrowserHarness.Run, names: [String]) throws {
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/images")
        let copying = ProcessInfo.processInfo.environment["SLEEPLEDGER_SCREENSHOTS_TO_DOCS"] == "1"
        for name in names {
            let file = run.screenshots.appendingPathComponent(name + ".png")
            let data = try Data(contentsOf: file)
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name).png is a PNG")
            // The PNG's width: the IHDR chunk's first field, big-endian, at byte 16.
            let width = data.count > 24 ? data[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
            #expect(name.hasSuffix("-\(width)"), "\(name).png is \(width) px wide")
            if copying {
                let target = images.appendingPathComponent(name + ".png")
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: file, to: target)
            }
        }
    }
}
