import CLICommon
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger-admin debt HANDLE [--horizon H] [--as-of DATE] [--format text|json|csv]`:
/// the debt series of one horizon, one row per chart bucket.
struct AdminDebtCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin debt HANDLE [--horizon daily|weekly|monthly|yearly|5y|10y]
                                     [--as-of YYYY-MM-DD] [--format text|json|csv]

        The debt series: per bucket (day, week, month or year) the shortfall against the
        target, the net balance, tracked nights, average asleep time and the running
        cumulative debt. Default horizon: weekly.
        """
    static let options: Set<String> = ["horizon", "as-of", "format"]
    static let flags: Set<String> = []

    /// The CSV header.
    static let csvHeader = [
        "first", "last", "tracked_nights", "debt_seconds", "net_balance_seconds", "cumulative_debt_seconds",
        "average_asleep_seconds", "below_minimum",
    ]

    let handle: String
    let horizon: Horizon
    let asOf: LocalDate?
    let format: OutputFormat

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        horizon = try arguments.horizon()
        asOf = try arguments.date("as-of")
        format = try arguments.format()
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        guard let summary = try context.summary(for: user, horizon: horizon, asOf: asOf, format: format) else {
            return
        }
        switch format {
        case .json:
            context.console.print(try JSONText.encode(DebtSeries(summary: summary, handle: user.handle)))
        case .csv:
            var table = CSVTable(header: Self.csvHeader)
            for bucket in summary.buckets {
                table.append([
                    bucket.range.first.description, bucket.range.last.description, String(bucket.trackedNights),
                    String(bucket.debtSeconds), String(bucket.netBalanceSeconds), String(bucket.cumulativeDebtSeconds),
                    bucket.averageAsleepSeconds.map(String.init) ?? "", bucket.isBelowMinimum ? "true" : "false",
                ])
            }
            context.console.writeOutput(table.rendered)
        case .text:
            let style = context.style
            var output: TerminalText =
                "\(user.handle)  \(summary.horizon.rawValue) debt as of \(summary.asOf): \(ReportFormat.hours(summary.debt.debtSeconds)) over \(ReportFormat.nights(summary.debt.trackedNights)), "
                + style.severity(summary.debt.severity)
                + " (\(ReportFormat.debtReference(summary)) \(ReportFormat.hours(summary.goalBand.targetSeconds)), minimum \(ReportFormat.hours(summary.goalBand.minimumSeconds)))\n\n"
            var table = TextTable(header: [
                ReportFormat.bucketName(summary.horizon).uppercased(), "NIGHTS", "SHORTFALL", "NET",
                "AVG ASLEEP",
                "CUMULATIVE", "NOTE",
            ])
            for bucket in summary.buckets {
                let empty = bucket.trackedNights == 0
                table.append(
                    [
                        "\(ReportFormat.bucketLabel(bucket.range, horizon: summary.horizon))",
                        "\(bucket.trackedNights)", empty ? "-" : "\(ReportFormat.hours(bucket.debtSeconds))",
                        empty ? "-" : "\(signed(bucket.netBalanceSeconds))",
                        "\(ReportFormat.hours(bucket.averageAsleepSeconds))",
                        "\(ReportFormat.hours(bucket.cumulativeDebtSeconds))",
                        bucket.isBelowMinimum ? style.paint("below minimum", .warning) : "",
                    ] as [TerminalText])
            }
            output += table.rendered
            context.console.writeOutput(output)
        }
    }

    /// Net balance with its sign: `+25m`, `-1h 5m`, `0m`.
    func signed(_ seconds: Int64) -> String {
        seconds > 0 ? "+" + ReportFormat.hours(seconds) : ReportFormat.hours(seconds)
    }
}
