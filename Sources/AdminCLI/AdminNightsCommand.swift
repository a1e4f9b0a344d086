import CLICommon
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger-admin nights HANDLE [--from DATE] [--to DATE] [--naps] [--format ...]`:
/// every stored night with all its fields, and the naps with `--naps`.
struct AdminNightsCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin nights HANDLE [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--naps]
                                       [--format text|json|csv]

        Every night the rollup stored, by wake day, with all its fields; local times in the
        night's zone. --naps adds the naps (text and JSON); with --format csv it prints the
        naps table instead of the nights table (CSV holds one table).
        """
    static let options: Set<String> = ["from", "to", "format"]
    static let flags: Set<String> = ["naps"]

    /// The JSON document.
    struct Listing: Codable, Equatable {
        var handle: String
        var nights: [Night]
        var naps: [Nap]?
        /// Each night's confidence by wake day (issue 24); absent when none is stored.
        var confidence: [String: NightConfidence]? = nil
    }

    let handle: String
    let from: LocalDate?
    let to: LocalDate?
    let withNaps: Bool
    let format: OutputFormat

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        from = try arguments.date("from")
        to = try arguments.date("to")
        if let from, let to, to < from { throw CLIError.usage("--to \(to) is before --from \(from)", help: Self.usage) }
        withNaps = arguments.has("naps")
        format = try arguments.format()
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        let nights = try context.results.nights(for: user, from: from, through: to)
        let naps = withNaps ? try context.results.naps(for: user, from: from, through: to) : []
        let confidences = try context.results.confidences(for: user, from: from, through: to)
        if nights.isEmpty && naps.isEmpty {
            if try context.results.hasNights(user) {
                context.explain("\(user.handle) has no stored nights \(rangeText); widen --from/--to.", format: format)
            } else {
                context.explain(
                    AdminContext.message(for: try context.results.absence(of: user), user: user), format: format)
            }
            if format == .json {
                context.console.print(
                    try JSONText.encode(Listing(handle: user.handle, nights: [], naps: withNaps ? [] : nil)))
            }
            return
        }
        switch format {
        case .json:
            context.console.print(
                try JSONText.encode(
                    Listing(
                        handle: user.handle, nights: nights, naps: withNaps ? naps : nil,
                        confidence: confidences.isEmpty
                            ? nil : Dictionary(uniqueKeysWithValues: confidences.map { ($0.key.description, $0.value) })
                    )))
        case .csv:
            let table = withNaps ? NightsCSV.naps(naps) : NightsCSV.nights(nights, confidences: confidences)
            context.console.writeOutput(table.rendered)
        case .text:
            var output: TerminalText =
                "\(user.handle)  \(ReportFormat.nights(nights.count)) \(rangeText), local times in each night's zone\n\n"
            var table = TextTable(header: [
                "WAKE DAY", "ZONE", "BED", "ASLEEP AT", "WAKE", "ASLEEP", "IN BED", "AWAKE", "WAKE-UPS", "LATENCY",
                "DEEP", "REM", "CORE", "UNSTAGED", "EFF", "SOURCE", "FRAGMENTS", "SET ASIDE", "CONFIDENCE",
            ])
            for night in nights {
                let zone = night.timeZoneIdentifier
                let staged = night.hasStageData
                table.append([
                    night.wakeDay.description, zone, ReportFormat.localClock(night.bedtime, zone: zone),
                    ReportFormat.localClock(night.onset, zone: zone), ReportFormat.localClock(night.wake, zone: zone),
                    ReportFormat.hours(night.asleepSeconds), ReportFormat.hours(night.timeInBedSeconds),
                    ReportFormat.hours(night.awakeSeconds), String(night.wakeUps),
                    night.latencySeconds.map { ReportFormat.hours($0) } ?? "-",
                    staged ? ReportFormat.hours(night.stages.deep) : "-",
                    staged ? ReportFormat.hours(night.stages.rem) : "-",
                    staged ? ReportFormat.hours(night.stages.core) : "-", ReportFormat.hours(night.stages.unspecified),
                    ReportFormat.percent(night.efficiency), night.source, String(night.fragmentCount),
                    night.setAsideSources.isEmpty ? "-" : night.setAsideSources.joined(separator: ", "),
                    confidences[night.wakeDay].map { "\(PersonalText.decimal($0.value)) \($0.mark.rawValue)" } ?? "-",
                ])
            }
            output += table.rendered
            if withNaps {
                output += "\nNaps: \(naps.count)\n"
                if !naps.isEmpty {
                    var napTable = TextTable(header: ["WAKE DAY", "ZONE", "START", "END", "ASLEEP", "SOURCE"])
                    for nap in naps {
                        let zone = nap.timeZoneIdentifier
                        napTable.append([
                            nap.wakeDay.description, zone, ReportFormat.localClock(nap.start, zone: zone),
                            ReportFormat.localClock(nap.end, zone: zone), ReportFormat.hours(nap.asleepSeconds),
                            nap.source,
                        ])
                    }
                    output += napTable.rendered
                }
            }
            context.console.writeOutput(output)
        }
    }

    var rangeText: String {
        switch (from, to) {
        case (nil, nil): return "in all"
        case (let from?, nil): return "from \(from)"
        case (nil, let to?): return "through \(to)"
        case (let from?, let to?): return "from \(from) through \(to)"
        }
    }
}
