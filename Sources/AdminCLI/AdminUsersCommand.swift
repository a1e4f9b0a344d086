import CLICommon
import LedgerReadServices
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger-admin users [--sort ...] [--severity ...] [--as-of DATE] [--format ...]`:
/// one row per user with the stored weekly headline.
struct AdminUsersCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin users [--sort debt|score|handle|last-night]
                                      [--severity normal|concerning|critical]
                                      [--as-of YYYY-MM-DD] [--format text|json|csv]

        One row per user: handle, time zone, tracked nights, last night's wake day and
        hours, 7-day debt with severity, weekly score and grade, last import, last rollup
        (UTC). Sorting: debt (largest first), score (lowest first), handle (default),
        last-night (longest ago first). --severity keeps users of that 7-day severity.
        """
    static let options: Set<String> = ["sort", "severity", "as-of", "format"]
    static let flags: Set<String> = []

    /// The sort orders.
    enum Sort: String, CaseIterable {
        case debt, score, handle
        case lastNight = "last-night"
    }

    /// One user's row, as JSON.
    struct Row: Codable, Equatable {
        var handle: String
        var timeZone: String
        var trackedNights: Int
        var lastNightWakeDay: LocalDate?
        var lastNightAsleepSeconds: Int64?
        var asOf: LocalDate?
        var debtSeconds: Int64?
        var severity: DebtSeverity?
        var score: Int?
        var grade: SleepGrade?
        var lastImportAt: Int64?
        var lastRollupAt: Int64?

        enum CodingKeys: String, CodingKey {
            case handle, severity, score, grade
            case timeZone = "time_zone"
            case trackedNights = "tracked_nights"
            case lastNightWakeDay = "last_night_wake_day"
            case lastNightAsleepSeconds = "last_night_asleep_seconds"
            case asOf = "as_of"
            case debtSeconds = "debt_seconds"
            case lastImportAt = "last_import_at"
            case lastRollupAt = "last_rollup_at"
        }
    }

    /// The CSV header.
    static let csvHeader = [
        "handle", "time_zone", "tracked_nights", "last_night_wake_day", "last_night_asleep_seconds", "as_of",
        "debt_seconds", "severity", "score", "grade", "last_import_at", "last_rollup_at",
    ]

    let sort: Sort
    let severity: DebtSeverity?
    let asOf: LocalDate?
    let format: OutputFormat

    init(arguments: Arguments) throws {
        if let extra = arguments.positionals.first {
            throw CLIError.usage("unexpected argument '\(extra)'", help: Self.usage)
        }
        let sortText = arguments.value("sort") ?? "handle"
        guard let sort = Sort(rawValue: sortText) else {
            throw CLIError.usage(
                "--sort must be one of debt|score|handle|last-night, not '\(sortText)'", help: Self.usage)
        }
        self.sort = sort
        if let text = arguments.value("severity") {
            guard let severity = DebtSeverity(rawValue: text) else {
                throw CLIError.usage(
                    "--severity must be one of normal|concerning|critical, not '\(text)'", help: Self.usage)
            }
            self.severity = severity
        } else {
            severity = nil
        }
        asOf = try AdminContext.date(arguments, "as-of", usage: Self.usage)
        format = try OutputFormat.parse(arguments.value("format"), allowed: OutputFormat.allCases, usage: Self.usage)
    }

    func run(_ context: AdminContext) throws {
        let overviews = try context.users.overviews()
        guard !overviews.isEmpty else {
            context.explain(
                "No users yet: add one with `sleepledger user add HANDLE --time-zone ZONE`.", format: format)
            if format == .json { context.console.print("[]") }
            return
        }
        var rows = try overviews.map { try row(of: $0, context: context) }
        if let severity { rows = rows.filter { $0.severity == severity } }
        rows = sorted(rows)
        switch format {
        case .json:
            context.console.print(try JSONText.encode(rows))
        case .csv:
            var table = CSVTable(header: Self.csvHeader)
            for row in rows {
                table.append([
                    row.handle, row.timeZone, String(row.trackedNights), row.lastNightWakeDay?.description ?? "",
                    row.lastNightAsleepSeconds.map(String.init) ?? "", row.asOf?.description ?? "",
                    row.debtSeconds.map(String.init) ?? "", row.severity?.rawValue ?? "",
                    row.score.map(String.init) ?? "", row.grade?.rawValue ?? "", ReportFormat.isoUTC(row.lastImportAt),
                    ReportFormat.isoUTC(row.lastRollupAt),
                ])
            }
            context.console.writeOutput(table.rendered)
        case .text:
            let style = context.style
            var table = TextTable(header: [
                "HANDLE", "TIME ZONE", "NIGHTS", "LAST NIGHT", "HOURS", "7-DAY DEBT", "SEVERITY", "SCORE", "GRADE",
                "LAST IMPORT", "LAST ROLLUP",
            ])
            for row in rows {
                let severity: TerminalText = row.severity.map(style.severity) ?? "-"
                let cells: [TerminalText] = [
                    "\(row.handle)", "\(row.timeZone)", "\(row.trackedNights)",
                    "\(row.lastNightWakeDay?.description ?? "-")", "\(ReportFormat.hours(row.lastNightAsleepSeconds))",
                    "\(ReportFormat.hours(row.debtSeconds))", severity, "\(row.score.map(String.init) ?? "-")",
                    "\(row.grade?.rawValue ?? "-")", "\(ReportFormat.utcTime(row.lastImportAt))",
                    "\(ReportFormat.utcTime(row.lastRollupAt))",
                ]
                table.append(cells)
            }
            var output = table.rendered
            let shown = "\(rows.count) of \(overviews.count) user\(overviews.count == 1 ? "" : "s")"
            let figures =
                asOf.map { ", 7-day figures computed as of \($0)" } ?? ", 7-day figures as the last rollup stored them"
            output += "\n\(shown)\(figures)\n"
            let withoutNights = rows.filter { $0.trackedNights == 0 }.count
            if withoutNights > 0 {
                output +=
                    "\(withoutNights) without stored nights (\"-\"): import their exports with `sleepledger import`, then run `sleepledger rollup`.\n"
            }
            let notRolledUp = rows.filter { $0.trackedNights > 0 && $0.debtSeconds == nil }.count
            if notRolledUp > 0 {
                output += "\(notRolledUp) with nights but no weekly summary (\"-\"): run `sleepledger rollup`.\n"
            }
            if rows.isEmpty, let severity { output += "No user has \(severity.rawValue) 7-day debt.\n" }
            context.console.writeOutput(output)
        }
    }

    /// The row of one user: stored headline, or with `--as-of` the weekly summary computed
    /// from the stored nights.
    func row(of overview: AdminUserOverview, context: AdminContext) throws -> Row {
        var row = Row(
            handle: overview.user.handle, timeZone: overview.user.timeZoneIdentifier,
            trackedNights: overview.trackedNights, lastNightWakeDay: overview.lastNightWakeDay,
            lastNightAsleepSeconds: overview.lastNightAsleepSeconds, asOf: overview.weekly?.asOf,
            debtSeconds: overview.weekly?.debtSeconds, severity: overview.weekly?.severity,
            score: overview.weekly?.score, grade: overview.weekly?.grade, lastImportAt: overview.lastImportAt,
            lastRollupAt: overview.lastRollupAt)
        if overview.trackedNights == 0 {
            // Nothing tracked yet: a stored all-zero headline would read as "no debt".
            row.asOf = nil
            row.debtSeconds = nil
            row.severity = nil
            row.score = nil
            row.grade = nil
        }
        if let asOf {
            row.asOf = nil
            row.debtSeconds = nil
            row.severity = nil
            row.score = nil
            row.grade = nil
            if overview.trackedNights > 0,
                case .found(let summary) = try context.results.summary(for: overview.user, horizon: .weekly, asOf: asOf)
            {
                // The latest stored night among those the weekly summary read.
                // The week before an as-of day early in 1900 starts before the supported
                // dates, where no night is stored.
                let first = max(
                    LookBack.nights(for: [.weekly], asOf: asOf).wakeDays.first, LocalDate.supportedRange.lowerBound)
                let nights = try context.results.nights(for: overview.user, from: first, through: asOf)
                row.asOf = asOf
                row.debtSeconds = summary.debt.debtSeconds
                row.severity = summary.debt.severity
                row.score = summary.score.overall
                row.grade = summary.score.grade
                let latest = nights.last
                row.lastNightWakeDay = latest?.wakeDay
                row.lastNightAsleepSeconds = latest?.asleepSeconds
            }
        }
        return row
    }

    /// Rows in the chosen order; ties and missing values fall back to handle order, the
    /// order the overviews come in (by handle key: letter case and accent encoding do not
    /// matter, docs/operations.md "Handles").
    func sorted(_ rows: [Row]) -> [Row] {
        let indexed = Array(rows.enumerated())
        func by(_ isBefore: (Row, Row) -> Bool?) -> [Row] {
            indexed.sorted { a, b in isBefore(a.element, b.element) ?? (a.offset < b.offset) }.map(\.element)
        }
        /// `nil` when equal, so handle order decides.
        func order<Value: Comparable>(_ x: Value, _ y: Value, _ isBefore: (Value, Value) -> Bool) -> Bool? {
            x == y ? nil : isBefore(x, y)
        }
        switch sort {
        case .handle:
            return rows
        case .debt:
            return by { a, b in order(a.debtSeconds ?? -1, b.debtSeconds ?? -1, >) }
        case .score:
            return by { a, b in order(a.score ?? 101, b.score ?? 101, <) }
        case .lastNight:
            return by { a, b in
                order(
                    a.lastNightWakeDay?.daysSinceEpoch ?? Int.min, b.lastNightWakeDay?.daysSinceEpoch ?? Int.min, <)
            }
        }
    }
}
