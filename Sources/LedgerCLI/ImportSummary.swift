import Foundation
import HealthImport
import LedgerServices
import LedgerStore
import SleepCore
import SleepReports

/// What `sleepledger import` reports for one input, printed as text or JSON
/// (`--format json`: snake_case keys, instants in ISO 8601 UTC).
struct ImportSummary: Encodable {
    /// One rejected record, `file:line: reason`.
    struct Diagnostic: Encodable {
        var file: String
        var line: Int
        var reason: String
    }

    var file: String
    var kind: String
    var entry: String?
    var sizeBytes: Int64
    var sha256: String
    var dryRun: Bool
    var importID: Int64?
    /// The person's import number (what the pages show); `nil` on a dry run.
    var number: Int64?
    var recordsSeen: Int
    var sleepRecordsRead: Int
    var accepted: Int
    var rejected: Int
    /// Accepted samples already stored; `nil` on a dry run (the database is not asked).
    var duplicates: Int?
    /// Samples added; `nil` on a dry run.
    var inserted: Int?
    var stages: [String: Int]
    var earliestStart: String?
    var latestEnd: String?
    var dirtyFrom: String?
    var warnings: [String]
    var diagnostics: [Diagnostic]
    var diagnosticsNotKept: Int
    var seconds: Double

    enum CodingKeys: String, CodingKey {
        case file
        case kind
        case entry
        case sizeBytes = "size_bytes"
        case sha256
        case dryRun = "dry_run"
        case importID = "import_id"
        case number
        case recordsSeen = "records_seen"
        case sleepRecordsRead = "sleep_records_read"
        case accepted
        case rejected
        case duplicates
        case inserted
        case stages
        case earliestStart = "earliest_start"
        case latestEnd = "latest_end"
        case dirtyFrom = "dirty_from"
        case warnings
        case diagnostics
        case diagnosticsNotKept = "diagnostics_not_kept"
        case seconds
    }

    /// How many diagnostics the text form lists before "and N more".
    static let diagnosticsShown = 5

    init(report: ReadReport, outcome: ImportOutcome?, dryRun: Bool, seconds: Double) {
        file = report.inputName
        kind = report.kind.rawValue
        entry = report.entryName
        sizeBytes = report.inputBytes
        sha256 = report.sha256
        self.dryRun = dryRun
        importID = outcome?.importID
        number = outcome?.number
        recordsSeen = report.recordsSeen
        sleepRecordsRead = report.accepted + report.rejected
        accepted = report.accepted
        rejected = report.rejected
        duplicates = outcome?.duplicates
        inserted = outcome?.inserted
        var stages: [String: Int] = [:]
        for (stage, count) in report.stageCounts { stages[stage.rawValue] = count }
        self.stages = stages
        earliestStart = report.earliestStart.map(ReportFormat.isoUTC)
        latestEnd = report.latestEnd.map(ReportFormat.isoUTC)
        dirtyFrom = outcome?.dirtyFrom?.description
        warnings = report.warnings
        diagnostics = report.diagnostics.map { Diagnostic(file: $0.file, line: $0.line, reason: $0.reason) }
        diagnosticsNotKept = report.diagnosticsNotKept
        self.seconds = (seconds * 1000).rounded() / 1000
    }

    /// The text form: a headline, then one fact per line. File names, entry names,
    /// warnings and diagnostics are values (``TerminalText``): their control characters
    /// are shown, not obeyed.
    var text: TerminalText {
        var lines: [TerminalText] = []
        var identity: TerminalText = "\(file): \(kind)"
        if let entry { identity += " (\(entry))" }
        identity += ", \(sizeBytes) bytes, sha256 \(sha256)"
        lines.append((dryRun ? "dry run, nothing written: " : "") + identity)
        func row(_ label: String, _ value: String) {
            lines.append("  \(label.padding(toLength: 20, withPad: " ", startingAt: 0))\(value)")
        }
        row("sleep records read", "\(sleepRecordsRead) (of \(recordsSeen) records)")
        row("accepted", "\(accepted)")
        row("rejected", "\(rejected)")
        if let duplicates { row("duplicates", "\(duplicates)") }
        if let inserted { row("inserted", "\(inserted)") }
        let stageText = SleepStage.allCases.compactMap { stage in
            stages[stage.rawValue].map { "\(stage.rawValue) \($0)" }
        }
        if !stageText.isEmpty { row("per stage", stageText.joined(separator: ", ")) }
        if let earliestStart, let latestEnd { row("samples span", "\(earliestStart) to \(latestEnd)") }
        if let dirtyFrom { row("rollups dirty from", dirtyFrom) }
        row("took", String(format: "%.2f s", seconds))
        for warning in warnings { lines.append("  warning: \(warning)") }
        for diagnostic in diagnostics.prefix(Self.diagnosticsShown) {
            lines.append(
                "  \(diagnostic.file):\(diagnostic.line): \(diagnostic.reason)"
            )
        }
        // Every diagnostic is a rejected record, except a Health Auto Export payload's
        // notes about metrics it ignored.
        let more = diagnostics.count + diagnosticsNotKept - min(diagnostics.count, Self.diagnosticsShown)
        let noun = kind == InputKind.healthAutoExport.rawValue ? "diagnostic" : "rejected record"
        if more > 0 { lines.append("  and \(more) more \(noun)\(more == 1 ? "" : "s")") }
        if let inserted, inserted == 0, accepted > 0 {
            lines.append("nothing new: all \(accepted) samples were already imported")
        }
        var text = TerminalText.empty
        for (index, line) in lines.enumerated() { text += (index == 0 ? "" : "\n") + line }
        return text
    }
}
