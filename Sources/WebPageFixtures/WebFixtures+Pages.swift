public import SleepCore
public import WebPages

/// Every page rendered as a whole document, with ordinary and with hostile values, for the
/// checks that apply to all of them.
extension WebFixtures {
    /// Values a person controls that try to break out of the markup.
    public static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='alert(1)",
        "</li></ul><style>body{display:none}</style>", "a&b", "\u{202E}evil\u{1B}[2J",
    ]

    /// One hostile value of them all, for a field that takes one string.
    public static let hostileValue = hostile.joined(separator: " ")

    /// A night like `night` whose source and zone are hostile.
    public static func hostileNight(_ night: Night) -> Night {
        var copy = night
        copy.source = hostileValue
        copy.timeZoneIdentifier = "Europe/Berlin\"><script>x</script>"
        return copy
    }

    /// Imports in every state, with diagnostics and a failure reason.
    public static func imports(fileName: String = "export.zip", diagnostic: String = "export.xml:12: bad date")
        -> [ImportRow]
    {
        [
            ImportRow(id: 4, state: .queued, fileName: fileName, sizeBytes: 3 << 30, createdAt: 1_742_200_000),
            ImportRow(id: 3, state: .running, fileName: fileName, sizeBytes: 12_345, createdAt: 1_742_100_000),
            ImportRow(
                id: 2, state: .failed, fileName: fileName, sizeBytes: 512, createdAt: 1_742_000_000,
                finishedAt: 1_742_000_010, error: "not an export: \(diagnostic)"),
            ImportRow(
                id: 1, state: .done, fileName: fileName, sizeBytes: 359_554, createdAt: 1_741_900_000,
                finishedAt: 1_741_900_030,
                counts: ImportRow.Counts(read: 455, inserted: 450, duplicate: 3, rejected: 2),
                diagnostics: Array(repeating: diagnostic, count: 60)),
            ImportRow(id: 0, state: .cancelled, fileName: fileName, sizeBytes: 1, createdAt: 1_741_800_000),
        ]
    }

    /// Tokens, one revoked.
    public static func tokens(name: String = "phone") -> [TokenRow] {
        [
            TokenRow(
                id: "24d6149b81e45162", name: name, scope: .ingest, createdAt: 1_742_000_000, lastUsedAt: 1_742_100_000),
            TokenRow(
                id: "17e341c8906e8ad1", name: name, scope: .full, createdAt: 1_741_000_000, revokedAt: 1_741_500_000),
        ]
    }

    /// Web sessions: the one showing the page, one elsewhere at `address`, one with none recorded.
    public static func sessions(address: String = "198.51.100.7") -> [SessionRow] {
        [
            SessionRow(createdAt: 1_742_000_000, lastUsedAt: 1_742_200_000, address: "192.0.2.1", isCurrent: true),
            SessionRow(createdAt: 1_741_900_000, lastUsedAt: 1_742_100_000, address: address),
            SessionRow(createdAt: 1_741_800_000, lastUsedAt: 1_741_800_000),
        ]
    }

    // function-length: the one list of every page the server renders, a line or two each;
    // split up, the list a reader checks for completeness would be scattered.
    /// Every page, as (name, document), with `value` in every place a person's value goes.
    public static func allPages(value: String? = nil) -> [(name: String, html: String)] {
        let handle = value ?? "anna"
        let csrf = "csrf-test-token"
        let weekly = rich(.weekly)
        var nights = windowNights(weekly)
        if value != nil { nights = nights.map(hostileNight) }
        func page(_ page: WebPage, signedIn: Bool = true) -> String {
            WebLayout.render(page, signedIn: signedIn ? handle : nil, csrfToken: csrf)
        }
        let notice = value.map { WebNotice(.error, $0) }
        var pages: [(String, String)] = []
        for horizon in Horizon.allCases {
            let summary = rich(horizon)
            var window = windowNights(summary)
            if value != nil { window = window.map(hostileNight) }
            pages.append(
                (
                    "dashboard-\(horizon.rawValue)",
                    page(
                        DashboardView.page(
                            handle: handle, horizon: horizon, content: .summary(summary, windowNights: window),
                            isRollupPending: true, storedAt: 1_742_190_000, notice: notice))
                ))
        }
        pages.append(
            (
                "dashboard-sparse",
                page(
                    DashboardView.page(
                        handle: handle, horizon: .weekly, content: .summary(sparse, windowNights: sparseNights)))
            ))
        for absence in DashboardAbsence.allCases {
            pages.append(
                (
                    "dashboard-\(absence.rawValue)",
                    page(
                        DashboardView.page(handle: handle, horizon: .weekly, content: .absent(absence), notice: notice))
                ))
        }
        pages.append(("upload", page(UploadView.page(maximumUploadBytes: 8 << 30, csrfToken: csrf, notice: notice))))
        pages.append(
            (
                "imports",
                page(
                    ImportsView.page(
                        imports: imports(
                            fileName: value ?? "export.zip", diagnostic: value ?? "export.xml:12: bad date"),
                        notice: notice))
            ))
        pages.append(("imports-empty", page(ImportsView.page(imports: []))))
        pages.append(
            (
                "nights",
                page(
                    NightsView.page(
                        nights: nights, from: weekly.window.first, to: weekly.window.last, notice: notice))
            ))
        pages.append(
            ("nights-empty", page(NightsView.page(nights: [], from: weekly.window.first, to: weekly.window.last))))
        pages.append(
            (
                "settings",
                page(
                    SettingsView.page(
                        handle: handle, timeZone: value ?? "Europe/Berlin", goals: SleepGoals(), csrfToken: csrf,
                        sessions: sessions(address: value ?? "198.51.100.7"), tokens: tokens(name: value ?? "phone"),
                        notice: notice))
            ))
        pages.append(
            (
                "tokens",
                page(
                    TokensView.page(
                        tokens: tokens(name: value ?? "phone"),
                        created: TokensView.CreatedToken(
                            token: "sl_24d6149b81e45162_2pmcDEgFu97P", name: value ?? "phone", scope: .ingest),
                        publicURL: "https://sleep.example.org/", csrfToken: csrf, notice: notice))
            ))
        pages.append(
            (
                "tokens-empty",
                page(TokensView.page(tokens: [], publicURL: "https://sleep.example.org", csrfToken: csrf))
            ))
        pages.append(
            ("sign-in", page(SignInView.page(csrfToken: csrf, handle: value ?? "", notice: notice), signedIn: false)))
        pages.append(
            ("message", page(MessageView.page(title: value ?? "Not found", message: value ?? "No such page."))))
        return pages
    }
}
