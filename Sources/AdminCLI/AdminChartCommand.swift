import CLICommon
import Foundation
import LedgerReadServices
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger-admin chart HANDLE --kind debt|duration [--horizon H] [--as-of DATE]
/// --output FILE.svg`: writes an SVG chart (the only file the admin tool writes; nothing
/// goes to the database).
struct AdminChartCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin chart HANDLE --kind debt|duration --output FILE.svg
                                      [--horizon daily|weekly|monthly|yearly|5y|10y] [--as-of YYYY-MM-DD]

        Writes an SVG chart. debt: a bar per bucket of its shortfall with the cumulative
        debt line. duration: daily and weekly, a bar per night from bedtime to wake
        coloured by stage; longer horizons, a bar per bucket of the average asleep time.
        The goal band (minimum to target) is shaded and bars under the minimum are red.
        Default horizon: weekly.
        """
    static let options: Set<String> = ["kind", "horizon", "as-of", "output"]
    static let flags: Set<String> = []

    /// What the chart shows.
    enum Kind: String { case debt, duration }

    let handle: String
    let kind: Kind
    let horizon: Horizon
    let asOf: LocalDate?
    let output: String

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        guard let kindText = arguments.value("kind") else {
            throw CLIError.usage("missing --kind debt|duration", help: Self.usage)
        }
        guard let kind = Kind(rawValue: kindText) else {
            throw CLIError.usage("--kind must be debt or duration, not '\(kindText)'", help: Self.usage)
        }
        self.kind = kind
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw CLIError.usage("missing --output FILE.svg", help: Self.usage)
        }
        self.output = output
        horizon = try arguments.horizon()
        asOf = try arguments.date("as-of")
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        guard let summary = try context.summary(for: user, horizon: horizon, asOf: asOf, format: .text) else { return }
        let svg: String
        switch kind {
        case .debt:
            svg = DebtChart.svg(summary: summary, handle: user.handle)
        case .duration:
            let nights =
                horizon == .daily || horizon == .weekly
                ? try context.results.nights(for: user, from: summary.window.first, through: summary.window.last) : []
            svg = DurationChart.svg(summary: summary, nights: nights, handle: user.handle)
        }
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIError(.noInput, "cannot write \(MessageText.escaped(output)): \(error.localizedDescription)")
        }
        context.console.print(
            "Wrote the \(horizon.rawValue) \(kind.rawValue) chart of \(user.handle) to \(MessageText.escaped(output))")
    }
}
