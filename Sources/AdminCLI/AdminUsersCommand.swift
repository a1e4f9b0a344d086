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

    /// The CSV header.
    static let csvHeader = [
        "handle", "time_zone", "tracked_nights", "last_night_wake_day", "last_night_asleep_seconds", "as_of",
        "debt_seconds", "severity", "score", "grade", "last_import_at", "last_rollup_at",
    ]

    let sort: UsersOverview.Sort
    let severity: DebtSeverity?
    let asOf: LocalDate?
    let format: OutputFormat

    init(arguments: AdminArguments) throws {
        try arguments.expectPositionals(0)
        sort = try arguments.choice("sort") ?? .handle
        severity = try arguments.choice("severity")
        asOf = try arguments.date("as-of")
        format = try arguments.format()
    }

    func run(_ context: AdminContext) throws {
        let overview = try context.users.overview(asOf: asOf, severity: severity, sort: sort)
        guard overview.userCount > 0 else {
            context.explain(
                "No users yet: add one with `sleepledger user add HANDLE --time-zone ZONE`.", format: format)
            if format == .json { context.console.print("[]") }
            return
        }
        let rows = overview.rows
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
            let shown = "\(rows.count) of \(overview.userCount) user\(overview.userCount == 1 ? "" : "s")"
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
}
