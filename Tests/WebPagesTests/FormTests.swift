import Foundation
import SleepCore
import SleepReports
import Testing
import WebPageFixtures

@testable import WebPages

/// The forms and tables of the other pages.
@Suite("Upload, imports, nights, settings, tokens")
struct FormTests {
    static func scan(_ page: WebPage) -> HTMLScan { HTMLScan(WebLayout.render(page, signedIn: "anna", csrfToken: "t")) }

    @Test(
        "sizes are written in binary units",
        arguments: [
            (Int64(0), "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1 KiB"), (1536, "1.5 KiB"),
            (359_554, "351.1 KiB"), (64 << 20, "64 MiB"), (8 << 30, "8 GiB"), (3 << 40, "3 TiB"),
        ])
    func bytes(count: Int64, expected: String) {
        #expect(WebFormat.bytes(count) == expected)
    }

    @Test("upload: a multipart form to /upload that works without JavaScript, and the hooks upload.js uses")
    func upload() throws {
        let scan = Self.scan(UploadView.page(maximumUploadBytes: 8 << 30, csrfToken: "t"))
        let form = try #require(scan.elements("form").first { $0.attributes["id"] == "upload-form" })
        #expect(form.attributes["method"] == "post" && form.attributes["action"] == "/upload")
        #expect(form.attributes["enctype"] == "multipart/form-data")
        #expect(form.attributes["data-api"] == "/api/v1/imports" && form.attributes["data-max-bytes"] == "8589934592")
        let file = try #require(scan.elements("input").first { $0.attributes["type"] == "file" })
        #expect(file.attributes["name"] == "file" && file.attributes["required"] != nil)
        #expect(
            file.attributes["accept"]?.contains(".zip") == true && file.attributes["accept"]?.contains(".csv") == true)
        #expect(scan.text.contains("export.zip, export.xml or a sleep CSV, up to 8 GiB"))
        let progress = try #require(scan.elements("progress").first)
        #expect(progress.attributes["max"] == "100" && progress.attributes["value"] == "0")
        let cancel = try #require(scan.elements("button").first { $0.attributes["id"] == "upload-cancel" })
        #expect(cancel.attributes["type"] == "button" && cancel.attributes["hidden"] != nil)
        #expect(scan.elements("p").first { $0.attributes["id"] == "upload-status" }?.attributes["role"] == "status")
        #expect(scan.elements("script").map { $0.attributes["src"] } == [WebAssets.uploadScript.path])
    }

    @Test("imports: state, sizes, counts, the importer's reason, diagnostics up to the limit")
    func imports() throws {
        let rows = WebFixtures.imports()
        let scan = Self.scan(ImportsView.page(imports: rows, diagnosticsShown: 50))
        #expect(scan.elements(withClass: "import").map { $0.attributes["id"] } == rows.map { "import-\($0.id)" })
        #expect(
            scan.elements(withClass: "state").map(\.textAfter) == ["Queued", "Running", "Failed", "Done", "Cancelled"])
        #expect(scan.elements(withClass: "import-error").map(\.textAfter) == ["not an export: export.xml:12: bad date"])
        #expect(scan.elements("dd").map(\.textAfter) == ["455", "450", "3", "2"])
        let diagnostics = scan.elements("li").filter { $0.textAfter == "export.xml:12: bad date" }
        #expect(diagnostics.count == 50)
        #expect(scan.text.contains("and 10 more"))
        #expect(scan.text.contains("60 diagnostics"))
        #expect(scan.text.contains("Import 4 · 3 GiB · uploaded 2025-03-17 08:26 UTC"))
        #expect(scan.text.contains("still on their way"))
        let empty = Self.scan(ImportsView.page(imports: []))
        #expect(empty.elements("a").contains { $0.attributes["href"] == "/upload" })
    }

    @Test("imports: one made with sleepledger import says so, numbered with the uploads (one numbering per person)")
    func commandLineImport() throws {
        let rows = [
            ImportRow(id: 8, state: .done, fileName: "upload.zip", sizeBytes: 2048, createdAt: 1_742_200_000),
            ImportRow(
                id: 7, isCommandLine: true, state: .done, fileName: "export.zip", sizeBytes: 1024,
                createdAt: 1_742_100_000),
        ]
        let scan = Self.scan(ImportsView.page(imports: rows))
        #expect(scan.elements(withClass: "import").map { $0.attributes["id"] } == ["import-8", "import-7"])
        #expect(scan.text.contains("Import 8 · 2 KiB · uploaded 2025-03-17 08:26 UTC"))
        #expect(scan.text.contains("Import 7, made with sleepledger import · 1 KiB · started 2025-03-16 04:40 UTC"))
    }

    @Test("nights: the range form, a row per night in its own local time, and the CSV link of the same range")
    func nights() throws {
        let summary = WebFixtures.rich(.monthly)
        let nights = WebFixtures.windowNights(summary)
        let scan = Self.scan(NightsView.page(nights: nights, from: summary.window.first, to: summary.window.last))
        let form = try #require(scan.elements("form").first { $0.attributes["class"] == "range-form" })
        #expect(form.attributes["method"] == "get" && form.attributes["action"] == "/nights")
        #expect(
            scan.elements("input").filter { $0.attributes["type"] == "date" }.map { $0.attributes["value"] } == [
                summary.window.first.description, summary.window.last.description,
            ])
        let rows = scan.elements("th").filter { $0.attributes["scope"] == "row" }
        #expect(rows.map(\.textAfter) == nights.map(\.wakeDay.description))
        let csv = try #require(scan.elements("a").first { $0.attributes["download"] != nil })
        #expect(csv.attributes["href"] == "/nights.csv?from=\(summary.window.first)&to=\(summary.window.last)")
        #expect(csv.attributes["download"] == "nights-\(summary.window.first)-to-\(summary.window.last).csv")
        // The first night's bedtime, read independently in its zone.
        let first = try #require(nights.first)
        let zone = try #require(TimeZone(identifier: first.timeZoneIdentifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents(
            [.hour, .minute], from: Date(timeIntervalSince1970: TimeInterval(first.bedtime)))
        let cells = scan.elements("td").prefix(3).map(\.textAfter)
        #expect(cells.first == String(format: "%02d:%02d", parts.hour ?? -1, parts.minute ?? -1))
        let empty = Self.scan(NightsView.page(nights: [], from: WebFixtures.asOf, to: WebFixtures.asOf))
        #expect(empty.text.contains("No night stored that woke from \(WebFixtures.asOf) through \(WebFixtures.asOf)."))
    }

    @Test("nights: each row ends with the night's confidence mark and value, - for a night not assessed yet")
    func nightsConfidence() throws {
        let summary = WebFixtures.rich(.monthly)
        let nights = WebFixtures.windowNights(summary)
        let first = try #require(nights.first)
        let last = try #require(nights.last)
        let low = NightConfidence(
            coverage: 0.5, dataKind: .asleepWithoutStages, agreement: 1, isTruncated: true, plausibility: 1,
            fragmentation: 1)
        let high = NightConfidence(
            coverage: 1, dataKind: .stages, agreement: 1, isTruncated: false, plausibility: 1, fragmentation: 1)
        let scan = Self.scan(
            NightsView.page(
                nights: nights, from: summary.window.first, to: summary.window.last,
                confidences: [first.wakeDay: low, last.wakeDay: high]))
        #expect(scan.elements("th").last { $0.attributes["scope"] == "col" }?.textAfter == "Confidence")
        let marks = scan.elements("span").filter { $0.attributes["class"]?.hasPrefix("mark ") == true }
        #expect(marks.map { $0.attributes["class"] } == ["mark mark-\(low.mark.rawValue)", "mark mark-high"])
        #expect(low.mark == .low && high.value == 1)
        let rows = scan.text.split(separator: "\n").filter { $0.contains(first.wakeDay.description) }
        #expect(rows.contains { $0.hasSuffix("low \(PersonalText.decimal(low.value))") }, "\(rows)")
        let cellsPerRow = scan.elements("td").count / nights.count
        #expect(scan.elements("td").count % nights.count == 0 && cellsPerRow == 13)
        if nights.count > 2 { #expect(scan.elements("td")[cellsPerRow * 2 - 1].textAfter == "-") }
    }

    @Test("settings: where the person is signed in (this session marked, addresses) and their tokens, no secret")
    func settingsAccess() throws {
        let page = SettingsView.page(
            handle: "anna", timeZone: "UTC", goals: SleepGoals(), csrfToken: "t", sessions: WebFixtures.sessions(),
            tokens: WebFixtures.tokens())
        let scan = Self.scan(page)
        let html = WebLayout.render(page, signedIn: "anna", csrfToken: "t")
        let sessionRows = html.matches(of: /<table class="sessions">.*?<\/table>/.dotMatchesNewlines()).first.map {
            String($0.0)
        }
        let sessions = try #require(sessionRows)
        #expect(sessions.contains("192.0.2.1") && sessions.contains("198.51.100.7"))
        #expect(sessions.components(separatedBy: "(this session)").count == 2)
        #expect(sessions.components(separatedBy: "<tr>").count == 5)
        // The tokens as the tokens page lists them: ids, never a secret; every form has its CSRF field.
        #expect(html.contains("24d6149b81e45162") && html.contains("17e341c8906e8ad1") && !html.contains("sl_"))
        #expect(scan.elements("button").allSatisfy { $0.attributes["disabled"] == nil })
        for form in html.matches(of: /<form [^>]*method="post"[^>]*>.*?<\/form>/.dotMatchesNewlines()) {
            #expect(form.0.contains("name=\"csrf_token\" value=\"t\""), "\(form.0.prefix(80))")
        }
    }

    @Test("settings: the work days as seven boxes, the person's checked, and the target mode as two radios")
    func personalSettings() throws {
        let goals = SleepGoals(workDays: WorkDays(isoWeekdays: [1, 3, 6]), target: .estimatedNeed)
        let scan = Self.scan(SettingsView.page(handle: "anna", timeZone: "UTC", goals: goals, csrfToken: "t"))
        let boxes = scan.elements("input").filter { ($0.attributes["name"] ?? "").hasPrefix("work_day_") }
        #expect(boxes.map { $0.attributes["name"] ?? "" } == (1...7).map { "work_day_\($0)" })
        #expect(
            boxes.filter { $0.attributes["checked"] != nil }.map { $0.attributes["name"] ?? "" } == [
                "work_day_1", "work_day_3", "work_day_6",
            ])
        let radios = scan.elements("input").filter { $0.attributes["name"] == "target_mode" }
        #expect(radios.map { $0.attributes["value"] ?? "" } == ["fixed", "estimated_need"])
        #expect(
            radios.filter { $0.attributes["checked"] != nil }.map { $0.attributes["value"] ?? "" } == ["estimated_need"]
        )
        let defaults = Self.scan(
            SettingsView.page(handle: "anna", timeZone: "UTC", goals: SleepGoals(), csrfToken: "t"))
        #expect(
            defaults.elements("input").filter {
                $0.attributes["name"] == "target_mode" && $0.attributes["checked"] != nil
            }
            .map { $0.attributes["value"] ?? "" } == ["fixed"])
    }

    @Test(
        "settings: every known zone with the person's selected, goals as hours and minutes, password and delete forms")
    func settings() throws {
        let goals = SleepGoals(targetSeconds: 7 * 3600 + 30 * 60, minimumSeconds: 6 * 3600 + 45 * 60)
        let scan = Self.scan(
            SettingsView.page(handle: "anna", timeZone: "Europe/Berlin", goals: goals, csrfToken: "t"))
        let zones = TimeZone.knownTimeZoneIdentifiers.sorted()
        let options = scan.elements("option")
        #expect(options.count == zones.count)
        #expect(options.filter { $0.attributes["selected"] != nil }.map { $0.attributes["value"] } == ["Europe/Berlin"])
        let values = Dictionary(
            scan.elements("input").compactMap { input in
                input.attributes["name"].map { ($0, input.attributes["value"] ?? "") }
            }, uniquingKeysWith: { first, _ in first })
        #expect(values["target_hours"] == "7" && values["target_minutes"] == "30")
        #expect(values["minimum_hours"] == "6" && values["minimum_minutes"] == "45")
        let forms = scan.elements("form").map { ($0.attributes["id"] ?? "", $0.attributes["action"] ?? "") }
        #expect(
            forms.map(\.1) == [
                "/sign-out", "/settings", "/settings/password", "/settings/sessions/end-others",
                "/settings/tokens/revoke-all", "/settings/delete",
            ])
        #expect(
            scan.elements("form").first { $0.attributes["id"] == "settings-form" }?.attributes["data-api"]
                == "/api/v1/me")
        let autocomplete = scan.elements("input").filter { $0.attributes["type"] == "password" }.map {
            $0.attributes["autocomplete"] ?? ""
        }
        #expect(autocomplete == ["current-password", "new-password", "new-password"])
        #expect(
            scan.elements("input").contains {
                $0.attributes["name"] == "confirm_handle" && $0.attributes["required"] != nil
            })
        #expect(scan.elements("script").map { $0.attributes["src"] } == [WebAssets.appScript.path])
        // "Download all my data": a plain link to the API's export, which downloads.
        let download = scan.elements("a").first { $0.attributes["id"] == "export-download" }
        #expect(download?.attributes["href"] == "/api/v1/me/export" && download?.attributes["download"] != nil)

        // The password form offers to revoke the tokens too; with no other session and no
        // valid token, ending them is offered but disabled.
        #expect(scan.elements("input").contains { $0.attributes["name"] == "revoke_tokens" })
        #expect(
            scan.elements("button").filter { $0.attributes["disabled"] != nil }.map(\.textAfter) == [
                "Sign out everywhere else", "Revoke all tokens",
            ])

        // A zone Foundation does not list (a fixed offset) is kept and selected.
        let other = Self.scan(SettingsView.page(handle: "anna", timeZone: "GMT+02:00", goals: goals, csrfToken: "t"))
        #expect(other.elements("option").count == zones.count + 1)
        #expect(other.elements("option").first?.attributes["value"] == "GMT+02:00")
        #expect(other.elements("option").first?.attributes["selected"] != nil)
    }

    @Test("tokens: create with a scope, the new one shown once, revoke forms, the exact Health Auto Export settings")
    func tokens() throws {
        let created = TokensView.CreatedToken(token: "sl_24d6149b81e45162_2pmcDEgFu97P", name: "phone", scope: .ingest)
        let scan = Self.scan(
            TokensView.page(
                tokens: WebFixtures.tokens(), created: created, publicURL: "https://sleep.example.org/", csrfToken: "t")
        )
        let shown = try #require(scan.elements("input").first { $0.attributes["id"] == "new-token" })
        #expect(shown.attributes["value"] == created.token && shown.attributes["readonly"] != nil)
        let scope = try #require(scan.elements("select").first)
        #expect(scope.attributes["name"] == "scope")
        #expect(scan.elements("option").map { $0.attributes["value"] } == ["ingest", "full"])
        let actions = scan.elements("form").compactMap { $0.attributes["action"] }
        #expect(actions == ["/sign-out", "/tokens", "/tokens/24d6149b81e45162/revoke"])
        #expect(scan.elements("tr").filter { $0.attributes["class"] == "revoked" }.count == 1)
        let copyable = scan.elements(withClass: "copyable").map(\.textAfter)
        #expect(
            copyable == [
                "https://sleep.example.org/api/v1/ingest/health-auto-export", "Bearer sl_24d6149b81e45162_2pmcDEgFu97P",
            ])
        let text = scan.text
        for setting in [
            "Automation type: REST API", "key Authorization", "Export format: JSON", "Sleep Analysis",
            "Summarize Data: off.",
        ] {
            #expect(text.contains(setting), "\(setting)")
        }
        let placeholder = Self.scan(
            TokensView.page(tokens: [], publicURL: "https://sleep.example.org", csrfToken: "t"))
        #expect(placeholder.elements(withClass: "copyable").map(\.textAfter).last == "Bearer &lt;your ingest token&gt;")
    }
}
