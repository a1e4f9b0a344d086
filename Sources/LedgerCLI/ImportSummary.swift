import Foundation
import HealthImport
import LedgerStore
import SleepCore

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
    var size_bytes: Int64
    var sha256: String
    var dry_run: Bool
    var import_id: Int64?
    var records_seen: Int
    var sleep_records_read: Int
    var accepted: Int
    var rejected: Int
    /// Accepted samples already stored; `nil` on a dry run (the database is not asked).
    var duplicates: Int?
    /// Samples added; `nil` on a dry run.
    var inserted: Int?
    var stages: [String: Int]
    var earliest_start: String?
    var latest_end: String?
    var dirty_from: String?
    var warnings: [String]
    var diagnostics: [Diagnostic]
    var diagnostics_not_kept: Int
    var seconds: Double

    /// How many diagnostics the text form lists before "and N more".
    static let diagnosticsShown = 5

    init(report: ReadReport, outcome: ImportOutcome?, dryRun: Bool, seconds: Double) {
        file = report.inputName
        kind = report.kind.rawValue
        entry = report.entryName
        size_bytes = report.inputBytes
        sha256 = report.sha256
        dry_run = dryRun
        import_id = outcome?.importID
        records_seen = report.recordsSeen
        sleep_records_read = report.accepted + report.rejected
        accepted = report.accepted
        rejected = report.rejected
        duplicates = outcome?.duplicates
        inserted = outcome?.inserted
        var stages: [String: Int] = [:]
        for (stage, count) in report.stageCounts { stages[stage.rawValue] = count }
        self.stages = stages
        earliest_start = report.earliestStart.map(Self.instantText)
        latest_end = report.latestEnd.map(Self.instantText)
        dirty_from = outcome?.dirtyFrom?.description
        warnings = report.warnings
        diagnostics = report.diagnostics.map { Diagnostic(file: $0.file, line: $0.line, reason: $0.reason) }
        diagnostics_not_kept = report.diagnosticsNotKept
        self.seconds = (seconds * 1000).rounded() / 1000
    }

    /// `2024-01-01T22:10:00Z`.
    static func instantText(_ epochSeconds: Int64) -> String {
        String(SQLValue.utcTimestampText(epochSeconds: epochSeconds).dropLast(3)).replacingOccurrences(
            of: " ", with: "T")
            + "Z"
    }

    /// The text form: a headline, then one fact per line.
    var text: String {
        var lines: [String] = []
        var identity = "\(file): \(kind)"
        if let entry { identity += " (\(entry))" }
        identity += ", \(size_bytes) bytes, sha256 \(sha256)"
        lines.append((dry_run ? "dry run, nothing written: " : "") + identity)
        func row(_ label: String, _ value: String) {
            lines.append("  " + label.padding(toLength: 20, withPad: " ", startingAt: 0) + value)
        }
        row("sleep records read", "\(sleep_records_read) (of \(records_seen) records)")
        row("accepted", "\(accepted)")
        row("rejected", "\(rejected)")
        if let duplicates { row("duplicates", "\(duplicates)") }
        if let inserted { row("inserted", "\(inserted)") }
        let stageText = SleepStage.allCases.compactMap { stage in
            stages[stage.rawValue].map { "\(stage.rawValue) \($0)" }
        }
        if !stageText.isEmpty { row("per stage", stageText.joined(separator: ", ")) }
        if let earliest_start, let latest_end { row("samples span", "\(earliest_start) to \(latest_end)") }
        if let dirty_from { row("rollups dirty from", dirty_from) }
        row("took", String(format: "%.2f s", seconds))
        for warning in warnings { lines.append("  warning: \(warning)") }
        for diagnostic in diagnostics.prefix(Self.diagnosticsShown) {
            lines.append("  \(diagnostic.file):\(diagnostic.line): \(diagnostic.reason)")
        }
        let more = rejected - min(rejected, min(diagnostics.count, Self.diagnosticsShown))
        if more > 0 { lines.append("  and \(more) more rejected record\(more == 1 ? "" : "s")") }
        if let inserted, inserted == 0, accepted > 0 {
            lines.append("nothing new: all \(accepted) samples were already imported")
        }
        return lines.joined(separator: "\n")
    }
}
