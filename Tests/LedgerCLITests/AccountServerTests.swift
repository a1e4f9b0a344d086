import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing
import WebPages

@testable import LedgerServer

/// The caller's own data through the real `sleepledger serve` and a real database: the
/// account routes after real uploads, compared with what the admin tool shows.
@Suite("sleepledger serve: the caller's own data", .serialized)
struct AccountServerTests {
    static let csvHead = "sourceName,startDate,endDate,value\n"

    /// A user in `zone` with a token of `scope` on the server's database; returns the token.
    static func user(_ handle: String, _ server: ServerProcess, zone: String = "Europe/Berlin", scope: String = "full")
        throws -> String
    {
        let environment = server.environment
        let (added, output) = runTool(["user", "add", handle, "--time-zone", zone], environment: environment)
        guard added == .success || output.errorText.contains("already exists") else {
            throw ServerProcess.ServerProcessError(message: output.errorText)
        }
        let (code, captured) = runTool(
            ["token", "create", "--user", handle, "--scope", scope], environment: environment)
        guard code == .success else { throw ServerProcess.ServerProcessError(message: captured.errorText) }
        return captured.printed.trimmingCharacters(in: .newlines)
    }

    /// `nights` nights of 8 h from 2024-01-01 as a CSV upload (`offset` minutes later bedtimes).
    static func csv(nights: Int, offset: Int = 0) -> String {
        var text = csvHead
        for day in 0..<nights {
            let start = 1_704_150_000 + Int64(day) * 86_400 + Int64(offset * 60)  // 2024-01-01T23:00:00Z
            text +=
                "W,\(iso(start)),\(iso(start + 8 * 3600 - Int64(day % 5) * 1800)),HKCategoryValueSleepAnalysisAsleepCore\n"
        }
        return text
    }

    static func iso(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// Uploads `arguments` (curl's body options), waits for the import and its rollup;
    /// returns the import.
    @discardableResult
    static func upload(_ arguments: [String], token: String, _ server: ServerProcess) throws -> [String: Any] {
        let upload = try server.curl("/api/v1/imports", arguments, token: token)
        #expect(upload.status == 202, "\(upload.body)")
        let id = try #require(upload.importObject["id"] as? Int)
        let done = try ServerTests.waitForImport(id, token: token, server)
        #expect(done.importObject["state"] as? String == "done", "\(done.body)")
        // The worker's rollup follows the import.
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            let me = try server.curl("/api/v1/me", token: token).json
            if me["last_rollup_at"] != nil, me["rollup_pending"] as? Bool == false { break }
            usleep(100_000)
        }
        return done.importObject
    }

    /// The admin tool's environment on the server's database.
    static func adminEnvironment(_ server: ServerProcess) throws -> [String: String] {
        var environment = server.environment
        environment["SLEEPLEDGER_ADMIN_DATABASE_URL"] = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: server.conninfo)
        return environment
    }

    /// JSON text in one canonical form (sorted keys, no spaces), for comparing documents.
    static func canonical(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return "not JSON: \(text)" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("after an upload: me, summary, debt and charts are the admin tool's; nights come in pages with next links")
    func readsAfterAnUpload() throws {
        let server = try ServerProcess(["--workers", "1"])
        let token = try Self.user("anna", server)
        let zip = try ServerTests.export(nights: 60, seed: 31)
        defer { try? FileManager.default.removeItem(at: zip) }
        try Self.upload(["-H", "Content-Type: application/zip", "--data-binary", "@" + zip.path], token: token, server)
        let admin = try Self.adminEnvironment(server)

        let me = try server.curl("/api/v1/me", token: token)
        #expect(me.status == 200 && me.headers["cache-control"] == "no-store")
        #expect(me.json["handle"] as? String == "anna" && me.json["time_zone"] as? String == "Europe/Berlin")
        #expect(me.json["target_seconds"] as? Int == 28_800 && me.json["minimum_seconds"] as? Int == 25_200)
        #expect(me.json["last_import_at"] is String && me.json["last_rollup_at"] is String)
        #expect(me.json["rollup_pending"] as? Bool == false)

        // The summary is the admin's JSON, stored (no as_of) or computed for a day.
        for (query, arguments) in [
            ("?as_of=2024-02-15", ["--as-of", "2024-02-15"]), ("?horizon=10y", ["--horizon", "10y"]),
            ("?horizon=monthly&as_of=2024-02-29", ["--horizon", "monthly", "--as-of", "2024-02-29"]),
        ] {
            let summary = try server.curl("/api/v1/summary" + query, token: token)
            #expect(summary.status == 200 && summary.headers["content-type"] == "application/json")
            let (code, printed) = runAdmin(["summary", "anna", "--format", "json"] + arguments, environment: admin)
            #expect(code == .success, "\(printed.errorText)")
            // The admin's JSON adds `personal` (issue 24), which the API serves at /api/v1/personal.
            var adminSummary = try Self.jsonObject(printed.printed)
            let adminPersonal = try #require(adminSummary.removeValue(forKey: "personal") as? [String: Any])
            let adminText = String(
                decoding: try JSONSerialization.data(withJSONObject: adminSummary, options: [.sortedKeys]),
                as: UTF8.self)
            #expect(Self.canonical(summary.body) == Self.canonical(adminText), "\(query)")
            let personal = try server.curl("/api/v1/personal" + query, token: token)
            #expect(personal.status == 200 && personal.headers["content-type"] == "application/json")
            let apiPersonal = try #require(personal.json["personal"] as? [String: Any])
            #expect(
                Self.canonical(String(decoding: try JSONSerialization.data(withJSONObject: apiPersonal), as: UTF8.self))
                    == Self.canonical(
                        String(decoding: try JSONSerialization.data(withJSONObject: adminPersonal), as: UTF8.self)),
                "\(query)")
            #expect((personal.json["personal"] as? [String: Any])?["need"] != nil)
        }
        let debt = try server.curl("/api/v1/debt?horizon=monthly&as_of=2024-02-29", token: token)
        let (_, printedDebt) = runAdmin(
            ["debt", "anna", "--horizon", "monthly", "--as-of", "2024-02-29", "--format", "json"], environment: admin)
        #expect(debt.status == 200 && Self.canonical(debt.body) == Self.canonical(printedDebt.printed))
        #expect((debt.json["buckets"] as? [Any])?.isEmpty == false)

        // The charts are the admin's, byte for byte.
        for (kind, horizon) in [("duration", "weekly"), ("debt", "monthly"), ("duration", "yearly")] {
            let chart = try server.curl("/api/v1/charts/\(kind).svg?horizon=\(horizon)&as_of=2024-02-20", token: token)
            #expect(chart.status == 200 && chart.headers["content-type"] == "image/svg+xml; charset=utf-8")
            #expect(chart.headers["cache-control"] == "no-store")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("chart-\(UUID().uuidString).svg")
            defer { try? FileManager.default.removeItem(at: file) }
            let (code, _) = runAdmin(
                [
                    "chart", "anna", "--kind", kind, "--horizon", horizon, "--as-of", "2024-02-20", "--output",
                    file.path,
                ], environment: admin)
            #expect(code == .success)
            #expect(chart.body == (try String(contentsOf: file, encoding: .utf8)), "\(kind) \(horizon)")
        }

        // Nights: 2023-01-01 to 2025-12-31 is three years; a page holds 366 days, and the
        // next link skips to the next stored night.
        let (_, listed) = runAdmin(["nights", "anna", "--format", "json"], environment: admin)
        let adminNights = try #require(Self.jsonObject(listed.printed)["nights"] as? [[String: Any]])
        let wakeDays = adminNights.compactMap { $0["wakeDay"] as? String }
        #expect(wakeDays.count >= 55)
        var pages: [[String: Any]] = []
        var path: String? = "/api/v1/nights?from=2023-01-01&to=2025-12-31"
        while let next = path, pages.count < 5 {
            let page = try server.curl(next, token: token)
            #expect(page.status == 200, "\(page.body)")
            pages.append(page.json)
            let link = page.json["next"] as? String
            #expect(page.headers["link"] == link.map { "<\($0)>; rel=\"next\"" })
            path = link.map { String($0.dropFirst("http://127.0.0.1:\(server.port)".count)) }
            if let link { #expect(link.hasPrefix("http://127.0.0.1:\(server.port)/api/v1/nights?from=")) }
        }
        #expect(pages.count == 2)
        #expect(pages.first?["from"] as? String == "2023-01-01" && pages.first?["to"] as? String == "2024-01-01")
        let firstAfter = try #require(wakeDays.first { $0 > "2024-01-01" })
        #expect(pages.last?["from"] as? String == firstAfter)
        let served = pages.flatMap { ($0["nights"] as? [[String: Any]]) ?? [] }
        #expect(served.compactMap { $0["wake_day"] as? String } == wakeDays)
        // Every field of a night, snake_case, as the admin's JSON has it.
        let night = try #require(served.last)
        let adminNight = try #require(adminNights.last)
        #expect(night["asleep_seconds"] as? Int == adminNight["asleepSeconds"] as? Int)
        #expect(night["time_zone"] as? String == adminNight["timeZoneIdentifier"] as? String)
        #expect(night["bedtime"] as? Int == adminNight["bedtime"] as? Int)
        #expect((night["bedtime_local"] as? String)?.count == 19)
        #expect((night["stage_segments"] as? [Any])?.count == (adminNight["stageSegments"] as? [Any])?.count)
        // Each night carries its confidence with its factors, the admin tool's for that wake day.
        let adminConfidences = try #require(
            Self.jsonObject(listed.printed)["confidence"] as? [String: [String: Any]])
        for served in served {
            let day = try #require(served["wake_day"] as? String)
            let confidence = try #require(served["confidence"] as? [String: Any], "\(day) has no confidence")
            let expected = try #require(adminConfidences[day])
            #expect(confidence.count == 7 && NSDictionary(dictionary: confidence) == NSDictionary(dictionary: expected))
        }

        // Without from and to: the last 30 days up to today in the user's zone.
        let recent = try server.curl("/api/v1/nights", token: token)
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        let today = berlin.dateComponents([.year, .month, .day], from: Date())
        let todayText = String(format: "%04d-%02d-%02d", today.year ?? 0, today.month ?? 0, today.day ?? 0)
        #expect(recent.json["to"] as? String == todayText)
        #expect((recent.json["nights"] as? [Any])?.isEmpty == true && recent.json["next"] == nil)
    }

    static func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("tokens over HTTP: created (201, shown once), listed without secrets, revoked; an ingest token reads no data")
    func tokens() throws {
        let server = try ServerProcess(["--workers", "0"])
        let token = try Self.user("anna", server)
        let created = try server.curl(
            "/api/v1/tokens", ["-X", "POST", "--data-binary", "{\"name\":\"laptop\",\"scope\":\"ingest\"}"],
            token: token)
        #expect(created.status == 201, "\(created.body)")
        let laptop = try #require(created.json["token"] as? String)
        let id = try #require(created.json["id"] as? String)
        #expect(laptop.hasPrefix("sl_\(id)_") && created.json["scope"] as? String == "ingest")
        #expect(created.json["name"] as? String == "laptop")
        let secret = String(laptop.suffix(43))

        let listing = try server.curl("/api/v1/tokens", token: token)
        let tokens = try #require(listing.json["tokens"] as? [[String: Any]])
        #expect(tokens.count == 2 && tokens.contains { $0["id"] as? String == id })
        #expect(!listing.body.contains(secret) && tokens.allSatisfy { $0["token"] == nil })

        #expect(try server.curl("/api/v1/imports", token: laptop).status == 200)
        let forbidden = try server.curl("/api/v1/tokens", token: laptop)
        #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden")

        #expect(try server.curl("/api/v1/tokens/\(id)", ["-X", "DELETE"], token: token).status == 204)
        #expect(try server.curl("/api/v1/imports", token: laptop).status == 401)
        let again = try server.curl("/api/v1/tokens/\(id)", ["-X", "DELETE"], token: token)
        #expect(again.status == 404 && again.errorCode == "not_found")
        let revoked = try server.curl("/api/v1/tokens", token: token).json["tokens"] as? [[String: Any]]
        #expect(revoked?.first { $0["id"] as? String == id }?["revoked_at"] is String)
        // The CLI sees the same tokens.
        let (_, cli) = runTool(["token", "list", "--user", "anna", "--format", "csv"], environment: server.environment)
        #expect(cli.printed.contains(id) && cli.printed.contains("laptop"))
    }

    @Test("PATCH /api/v1/me changes zone and goals with the CLI's rules, and the summary follows at once")
    func settingsRollUp() throws {
        let server = try ServerProcess(["--workers", "1"])
        let token = try Self.user("anna", server)
        try Self.upload(
            ["-H", "Content-Type: text/csv", "--data-binary", Self.csv(nights: 20)], token: token, server)
        let before = try server.curl("/api/v1/summary?horizon=10y", token: token).json
        let beforeDebt = try #require((before["debt"] as? [String: Any])?["debt_seconds"] as? Int)
        #expect((before["goal_band"] as? [String: Any])?["target_seconds"] as? Int == 28_800)

        let changed = try server.curl(
            "/api/v1/me", ["-X", "PATCH", "--data-binary", "{\"target_seconds\":32400,\"minimum_seconds\":27000}"],
            token: token)
        #expect(changed.status == 200, "\(changed.body)")
        #expect(changed.json["target_seconds"] as? Int == 32_400 && changed.json["minimum_seconds"] as? Int == 27_000)
        #expect(changed.json["rollup_pending"] as? Bool == false)
        let after = try server.curl("/api/v1/summary?horizon=10y", token: token).json
        #expect((after["goal_band"] as? [String: Any])?["target_seconds"] as? Int == 32_400)
        let afterDebt = try #require((after["debt"] as? [String: Any])?["debt_seconds"] as? Int)
        #expect(afterDebt == beforeDebt + 20 * 3600)

        let zone = try server.curl(
            "/api/v1/me", ["-X", "PATCH", "--data-binary", "{\"time_zone\":\"America/New_York\"}"], token: token)
        #expect(
            zone.json["time_zone"] as? String == "America/New_York" && zone.json["rollup_pending"] as? Bool == false)
        #expect(try server.curl("/api/v1/nights?from=2024-01-01&to=2024-01-31", token: token).json["nights"] != nil)

        let refused = try server.curl(
            "/api/v1/me", ["-X", "PATCH", "--data-binary", "{\"target_seconds\":20000}"], token: token)
        #expect(refused.status == 400 && refused.errorCode == "invalid_input")
        #expect(
            (refused.json["error"] as? [String: Any])?["message"] as? String
                == "target sleep 5h 33m is below the minimum 7h 30m")
        #expect(try server.curl("/api/v1/me", token: token).json["target_seconds"] as? Int == 32_400)

        // Issue 24: work days and the target mode; the summary then says what it measured against.
        let me = try server.curl("/api/v1/me", token: token).json
        #expect(me["work_days"] as? [Int] == [1, 2, 3, 4, 5] && me["target_mode"] as? String == "fixed")
        #expect(after["estimated_need"] == nil)
        let personal = try server.curl(
            "/api/v1/me", ["-X", "PATCH", "--data-binary", "{\"work_days\":[6,7],\"target_mode\":\"estimated_need\"}"],
            token: token)
        #expect(personal.status == 200, "\(personal.body)")
        #expect(personal.json["work_days"] as? [Int] == [6, 7])
        #expect(personal.json["target_mode"] as? String == "estimated_need")
        let measured = try server.curl("/api/v1/summary?horizon=10y", token: token).json
        let need = try #require(measured["estimated_need"] as? [String: Any])
        #expect((measured["goal_band"] as? [String: Any])?["target_seconds"] as? Int == need["need_seconds"] as? Int)
        for body in ["{\"work_days\":[0]}", "{\"work_days\":[1,1]}", "{\"target_mode\":\"need\"}"] {
            let bad = try server.curl("/api/v1/me", ["-X", "PATCH", "--data-binary", body], token: token)
            #expect(bad.status == 400, "\(body)")
        }
    }

    @Test("DELETE /api/v1/me: refused without the handle; with it every row of the user is gone, queued uploads too")
    func deleteAccount() throws {
        let server = try ServerProcess(["--workers", "0"])
        let anna = try Self.user("anna", server)
        let ben = try Self.user("ben", server)
        // Data through the CLI (no workers here), then an upload that waits in the queue.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("delete-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (handle, nights) in [("anna", 10), ("ben", 5)] {
            let file = folder.appendingPathComponent("\(handle).csv")
            try Self.csv(nights: nights).write(to: file, atomically: true, encoding: .utf8)
            #expect(runTool(["import", "--user", handle, file.path], environment: server.environment).0 == .success)
        }
        #expect(runTool(["rollup"], environment: server.environment).0 == .success)
        let queued = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", Self.csv(nights: 3, offset: 30)],
            token: anna)
        #expect(queued.status == 202 && server.spoolFiles.count == 1)

        let connection = try server.connection()
        defer { connection.close() }
        let annaID = try #require(
            try connection.execute("SELECT id FROM users WHERE handle = 'anna'").single().int64(0))
        let tables = try connection.execute(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r'
              AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id')
            ORDER BY 1
            """
        ).rows.compactMap { try $0.string(0) }
        #expect(tables.contains("sleep_samples") && tables.contains("api_tokens") && tables.contains("import_jobs"))
        func rows(_ userID: Int64) throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] =
                    try connection.execute(
                        "SELECT count(*) FROM \(try connection.quoteIdentifier(table)) WHERE user_id = $1",
                        [.int64(userID)]
                    ).single().int(0) ?? -1
            }
            counts["users"] =
                try connection.execute("SELECT count(*) FROM users WHERE id = $1", [.int64(userID)]).single().int(0)
            return counts
        }
        let annaRows = try rows(annaID)
        #expect((annaRows["sleep_samples"] ?? 0) > 0 && (annaRows["nights"] ?? 0) > 0)

        for body in ["", "{}", "{\"confirm_handle\":\"Anna\"}", "{\"confirm_handle\":\"ben\"}"] {
            let refused = try server.curl(
                "/api/v1/me", ["-X", "DELETE"] + (body.isEmpty ? [] : ["--data-binary", body]), token: anna)
            #expect(refused.status == 400 && refused.errorCode == "confirmation_required", "\(body): \(refused.body)")
        }
        #expect(try rows(annaID) == annaRows)

        let deleted = try server.curl(
            "/api/v1/me", ["-X", "DELETE", "--data-binary", "{\"confirm_handle\":\"anna\"}"], token: anna)
        #expect(deleted.status == 200, "\(deleted.body)")
        #expect(
            Self.canonical(deleted.body)
                == "{\"deleted\":{\"cancelled_imports\":1,\"handle\":\"anna\",\"removed_spool_files\":1}}")
        let gone = try rows(annaID)
        #expect(gone.values.allSatisfy { $0 == 0 }, "\(gone)")
        #expect(server.spoolFiles.isEmpty)
        #expect(try server.curl("/api/v1/me", token: anna).status == 401)
        // Ben is untouched.
        let benID = try #require(try connection.execute("SELECT id FROM users WHERE handle = 'ben'").single().int64(0))
        let benRows = try rows(benID)
        #expect((benRows["sleep_samples"] ?? 0) > 0 && (benRows["nights"] ?? 0) > 0 && benRows["users"] == 1)
        #expect(try server.curl("/api/v1/me", token: ben).json["handle"] as? String == "ben")
        let (_, users) = runTool(["user", "list", "--format", "csv"], environment: server.environment)
        #expect(!users.printed.contains("anna") && users.printed.contains("ben"))
    }

    @Test("two users never read or change each other's data through any route of the table")
    func isolationAcrossEveryRoute() throws {
        let server = try ServerProcess(["--workers", "1"])
        let anna = try Self.user("anna", server, zone: "Pacific/Auckland")
        let ben = try Self.user("ben", server)
        let benIngest = try Self.user("ben", server, scope: "ingest")
        // Each person's imports are numbered from 1: Anna's second is one Ben's number cannot
        // reach (he has an import 1 of his own).
        try Self.upload(
            ["-H", "Content-Type: text/csv", "--data-binary", Self.csv(nights: 2, offset: 43_200)], token: anna, server)
        let annaImport = try Self.upload(
            ["-H", "Content-Type: text/csv", "--data-binary", Self.csv(nights: 12)], token: anna, server)
        #expect(annaImport["id"] as? Int == 2)
        try Self.upload(
            ["-H", "Content-Type: text/csv", "--data-binary", Self.csv(nights: 4, offset: 15)], token: ben, server)
        let phone = try server.curl(
            "/api/v1/tokens", ["-X", "POST", "--data-binary", "{\"name\":\"anna-phone\"}"], token: anna)
        let annaToken = try #require(phone.json["id"] as? String)
        let annaSHA = try #require(annaImport["sha256"] as? String)

        // Anna's value for every capture a template can have (by the template up to the
        // capture: what it names), and values nobody has.
        // A static file belongs to nobody: the same name for both, so only the markers are checked.
        let asset = String(WebAssets.stylesheet.path.dropFirst("/static/".count))
        let annaValues = [
            "/api/v1/imports/{id}": "\(annaImport["id"] as? Int ?? 0)", "/api/v1/tokens/{id}": annaToken,
            "/static/{name}": asset, "/tokens/{id}": annaToken,
        ]
        let missingValues = [
            "/api/v1/imports/{id}": "987654321", "/api/v1/tokens/{id}": "7ffffffffffffff1", "/static/{name}": asset,
            "/tokens/{id}": "7ffffffffffffff1",
        ]
        let markers = ["anna", "Pacific/Auckland", annaSHA]

        func snapshot() throws -> [String] {
            try [
                "/api/v1/me", "/api/v1/imports", "/api/v1/tokens", "/api/v1/summary?horizon=10y",
                "/api/v1/nights?from=2024-01-01&to=2024-12-31", "/api/v1/debt?horizon=yearly",
            ].map { path in
                var text = Self.canonical(try server.curl(path, token: anna).body)
                // Anna's own reads mark her token used; nothing else may change.
                text = text.replacing(/"last_used_at":"[^"]*",?/, with: "")
                return path + " " + text
            }
        }
        let before = try snapshot()
        #expect(before.allSatisfy { $0.contains("anna") || !$0.hasPrefix("/api/v1/me") })

        func fill(_ template: String, _ values: [String: String]) -> String? {
            var path = template
            for match in template.matches(of: /\{[a-z_]+\}/) {
                let names = String(template[..<match.range.upperBound])
                guard let value = values[names] else {
                    Issue.record("give the isolation test the other user's value for \(names)")
                    return nil
                }
                if let range = path.range(of: String(match.0)) { path.replaceSubrange(range, with: value) }
            }
            return path
        }
        let bodies = ["{\"confirm_handle\":\"anna\"}", "{\"time_zone\":\"UTC\"}", "{\"name\":\"probe\"}"]
        let accountTemplates = Set(
            ServerRoutes.apiTable.filter { $0.access == .token(.full) }.map { "\($0.method) \($0.template)" })
        var requests = 0
        // Revoking all of Ben's tokens ends his access: it comes last, below.
        for route in ServerRoutes.table where "\(route.method) \(route.template)" != "DELETE /api/v1/tokens" {
            guard let path = fill(route.template, annaValues), let missing = fill(route.template, missingValues)
            else { continue }
            for body in route.method == "GET" ? [""] : bodies {
                var arguments = ["-X", route.method]
                if !body.isEmpty { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
                let answer = try server.curl(path, arguments, token: ben)
                requests += 1
                let what = "\(route.method) \(path) \(body)"
                #expect(answer.status > 0 && answer.status < 500, "\(what): \(answer.status) \(answer.body)")
                for marker in markers { #expect(!answer.body.contains(marker), "\(what) shows \(marker)") }
                if path != missing {
                    // Anna's id answers exactly as one that does not exist.
                    let absent = try server.curl(missing, arguments, token: ben)
                    #expect(answer.status == absent.status, "\(what)")
                    #expect(
                        answer.body
                            == absent.body.replacingOccurrences(
                                of: missing.split(separator: "/").last ?? "",
                                with: path.split(separator: "/").last ?? ""),
                        "\(what)")
                }
                let ingest = try server.curl(path, arguments, token: benIngest)
                for marker in markers { #expect(!ingest.body.contains(marker), "\(what) (ingest) shows \(marker)") }
                if accountTemplates.contains("\(route.method) \(route.template)") {
                    #expect(ingest.status == 403, "\(what) with an ingest token: \(ingest.status)")
                }
            }
        }
        #expect(requests >= ServerRoutes.table.count)
        #expect(try snapshot() == before)
        #expect(try server.curl("/api/v1/me", token: ben).json["handle"] as? String == "ben")
        let revoked = try server.curl("/api/v1/tokens", ["-X", "DELETE"], token: ben)
        #expect(revoked.status == 200 && (revoked.json["revoked_tokens"] as? Int ?? 0) >= 2, "\(revoked.body)")
        #expect(try server.curl("/api/v1/me", token: ben).status == 401)
        #expect(try snapshot() == before)
    }
}
