import Foundation
import LedgerServices
import SleepCore

/// `sleepledger rollup`: turns stored samples into nights, naps and the six horizon
/// summaries (docs/operations.md "Rollup and scheduling").
enum RollupCommand {
    static let usage = """
        Usage: sleepledger rollup [--user HANDLE] [--all] [--as-of YYYY-MM-DD] [--workers N]
                                  [--format text|json]

          --user HANDLE       Only this user (default: every user that needs work)
          --all               Rebuild every selected user from all samples (default:
                              incremental: changed users, moved as-of days, changed goals)
          --as-of DAY         The as-of day for everyone (default: each user's local today),
                              from 1900-01-01 through 2199-12-31
          --workers N         Parallel database connections (default: number of cores)
          --format text|json  The run report: one line (text) or a JSON document

        Exit codes: 0 done; 70 some user failed (the others were done; failed users are
        retried next run); 75 every user that needed work was held by another runner, or
        the run was stopped by SIGTERM/SIGINT before it finished.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words, options: ["user", "as-of", "workers", "format"], flags: ["all"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("rollup takes no positional arguments", help: usage)
        }
        let format = try OutputFormat.parse(arguments.value("format"), usage: usage)
        // One worker thread per core by default: two malloc arenas.
        MallocArenas.limit(environment)
        var settings = RollupSettings(
            handle: arguments.value("user"), isFullRebuild: arguments.has("all"),
            workers: ProcessInfo.processInfo.activeProcessorCount)
        settings.asOf = try arguments.date("as-of", usage: usage)
        if let text = arguments.value("workers") {
            guard let workers = Int(text), (1...256).contains(workers) else {
                throw CLIError.usage("--workers must be a whole number from 1 to 256, not '\(text)'", help: usage)
            }
            settings.workers = workers
        }
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        try DeletionsAtStart.reapply(database) { console.note("sleepledger: " + $0) }
        let rollup = RollupService(database: database, settings: settings)

        let stop = RollupStopSignal()
        let signals = StopSignalHandlers { stop.raise() }
        defer { signals.restore() }
        let clock = ContinuousClock()
        let started = clock.now
        let report = try rollup.run(now: Int64(Date().timeIntervalSince1970), stop: stop)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

        for failure in report.failures {
            console.note("sleepledger: rollup of \(failure.handle) failed: \(ErrorReport.oneLine(failure.message))")
        }
        switch format {
        case .json: console.print(try JSONText.encode(RollupRunReport(report: report, durationSeconds: seconds)))
        default: console.print(summaryLine(report, seconds: seconds))
        }
        if report.usersDone > 0, report.nightsWritten == 0, report.samplesRead == 0,
            report.usersRebuiltFully + report.usersRebuiltIncrementally > 0
        {
            console.note("sleepledger: no sleep samples are stored yet, so there are no nights; import an export first")
        }
        if report.usersFailed > 0 {
            throw CLIError(.internalError, "\(report.usersFailed) of \(report.usersSelected) users failed; see above")
        }
        if report.wasStopped && report.usersNotStarted > 0 {
            throw CLIError(.busy, "stopped by a signal; \(report.usersNotStarted) users left for the next run")
        }
        if report.isBusy {
            throw CLIError(.busy, "every user that needed work is held by another rollup run; try again later")
        }
    }

    /// The one-line log summary of a run.
    static func summaryLine(_ report: RollupReport, seconds: Double) -> String {
        var line =
            "rollup: \(report.usersDone) users done (\(report.usersRebuiltIncrementally) rebuilt from a changed day, "
            + "\(report.usersRebuiltFully) in full), \(report.usersUpToDate) up to date, "
            + "\(report.usersSkipped) skipped, \(report.usersFailed) failed, "
            + "\(report.nightsWritten) nights written, \(String(format: "%.1f", seconds)) s"
        if report.wasStopped { line += ", stopped with \(report.usersNotStarted) users not started" }
        return line
    }
}

/// The JSON report: the engine's counts plus the run's duration.
struct RollupRunReport: Encodable {
    let report: RollupReport
    let durationSeconds: Double

    enum CodingKeys: String, CodingKey { case durationSeconds = "duration_seconds" }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode((durationSeconds * 1000).rounded() / 1000, forKey: .durationSeconds)
    }
}
