import CLICommon
import Foundation
import LedgerReadServices
import LedgerStore
import SleepReports

/// `sleepledger-admin imports HANDLE [--format text|json|csv]`: the user's import history.
struct AdminImportsCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin imports HANDLE [--format text|json|csv]

        The user's imports, newest first: when, file, kind, status, samples read, new,
        duplicate and rejected, and the diagnostics each import recorded.
        """
    static let options: Set<String> = ["format"]
    static let flags: Set<String> = []

    /// One import, as JSON.
    struct Record: Codable, Equatable {
        var id: Int64
        var fileName: String
        var sizeBytes: Int64
        var kind: String
        var status: String
        var startedAt: Int64
        var finishedAt: Int64?
        var samplesRead: Int64
        var samplesInserted: Int64
        var samplesDuplicate: Int64
        var samplesRejected: Int64
        var diagnostics: [String]

        /// The record of an import's view (the admin tool lists import records: every run of
        /// the importer, each with its kind and status).
        init(_ view: ImportView) {
            let counts = view.counts
            id = view.importID ?? 0
            fileName = view.fileName
            sizeBytes = view.sizeBytes
            kind = view.kind ?? "unknown"
            status = view.recordStatus
            startedAt = view.startedAt ?? view.createdAt
            finishedAt = view.finishedAt
            samplesRead = counts?.read ?? 0
            samplesInserted = counts?.inserted ?? 0
            samplesDuplicate = counts?.duplicate ?? 0
            samplesRejected = counts?.rejected ?? 0
            diagnostics = view.diagnostics
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, status, diagnostics
            case fileName = "file_name"
            case sizeBytes = "size_bytes"
            case startedAt = "started_at"
            case finishedAt = "finished_at"
            case samplesRead = "samples_read"
            case samplesInserted = "samples_inserted"
            case samplesDuplicate = "samples_duplicate"
            case samplesRejected = "samples_rejected"
        }
    }

    let handle: String
    let format: OutputFormat

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        format = try arguments.format()
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        let records = try ImportHistory(session: context.session).records(for: user).map(Record.init)
        if records.isEmpty {
            context.explain(
                "\(user.handle) has no imports yet: import an export with `sleepledger import --user \(user.handle) FILE`.",
                format: format)
            if format == .json { context.console.print("[]") }
            return
        }
        switch format {
        case .json:
            context.console.print(try JSONText.encode(records))
        case .csv:
            var table = CSVTable(header: [
                "id", "started_at", "finished_at", "file_name", "size_bytes", "kind", "status", "samples_read",
                "samples_inserted", "samples_duplicate", "samples_rejected", "diagnostics",
            ])
            for record in records {
                table.append([
                    String(record.id), ReportFormat.isoUTC(record.startedAt), ReportFormat.isoUTC(record.finishedAt),
                    record.fileName, String(record.sizeBytes), record.kind, record.status, String(record.samplesRead),
                    String(record.samplesInserted), String(record.samplesDuplicate), String(record.samplesRejected),
                    record.diagnostics.joined(separator: "\n"),
                ])
            }
            context.console.writeOutput(table.rendered)
        case .text:
            var table = TextTable(header: [
                "ID", "STARTED", "FILE", "KIND", "STATUS", "READ", "NEW", "DUPLICATE", "REJECTED", "DIAGNOSTICS",
            ])
            for record in records {
                table.append([
                    String(record.id), ReportFormat.utcTime(record.startedAt), record.fileName, record.kind,
                    record.status, String(record.samplesRead), String(record.samplesInserted),
                    String(record.samplesDuplicate), String(record.samplesRejected), String(record.diagnostics.count),
                ])
            }
            var output: TerminalText =
                "\(user.handle)  \(records.count) import\(records.count == 1 ? "" : "s"), newest first\n\n"
            output += table.rendered
            let withDiagnostics = records.filter { !$0.diagnostics.isEmpty }
            if !withDiagnostics.isEmpty {
                output += "\nDiagnostics\n"
                for record in withDiagnostics {
                    output += "  import \(record.id) (\(record.fileName)):\n"
                    for line in record.diagnostics { output += "    \(line)\n" }
                }
            }
            context.console.writeOutput(output)
        }
    }
}
