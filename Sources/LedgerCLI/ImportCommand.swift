import Foundation
import HealthImport
import LedgerStore
import SleepCore

/// `sleepledger import --user HANDLE FILE...`: reads Apple Health exports (zip, XML, CSV
/// or `-` for standard input) and stores their sleep samples, one transaction per file.
enum ImportCommand {
    static let usage = """
        Usage: sleepledger import --user HANDLE [options] FILE...

          FILE                 export.zip, export.xml, a CSV of sleep samples, or - for
                               standard input (the kind is decided by content)
          --user HANDLE        Whose samples these are (the user must exist)
          --format text|json   How to print the summary (default text)
          --dry-run            Read and report; write nothing to the database
          --strict             Fail the import if any record is rejected
          --quiet              No progress line and no text summary (errors still print)

        Each file is imported in one transaction: a bad file (exit 65) stores nothing and
        is recorded as a failed import. Samples already stored are skipped, so importing
        the same export again inserts nothing. See docs/import-formats.md.
        """

    /// Thrown from inside the load when `--strict` meets a rejected record; rolls it back.
    struct StrictRejection: Error {
        var rejected: Int
        var first: ImportDiagnostic?
    }

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words, options: ["user", "format"], flags: ["quiet", "dry-run", "strict"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard let handle = arguments.value("user") else {
            throw CLIError.usage("import needs --user HANDLE", help: usage)
        }
        let files = arguments.positionals
        guard !files.isEmpty else {
            throw CLIError.usage("import needs at least one FILE (or - for standard input)", help: usage)
        }
        guard files.filter({ $0 == "-" }).count <= 1 else {
            throw CLIError.usage("standard input (-) can be imported only once per run", help: usage)
        }
        let format = try OutputFormat.parse(arguments.value("format"), allowed: [.text, .json], usage: usage)
        for file in files where file != "-" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw CLIError.notFound("cannot read \(file): no such file")
            }
            if isDirectory.boolValue { throw CLIError.notFound("cannot read \(file): is a directory") }
        }
        let options = ImportRunOptions(
            isDryRun: arguments.has("dry-run"), isStrict: arguments.has("strict"), isQuiet: arguments.has("quiet"))
        let configuration = try Configuration(environment: environment, isTerminal: console.isTerminal)
        let session = try DatabaseSession.open(configuration, access: options.isDryRun ? .reads : .writes)
        defer { session.close() }
        guard let user = try UserStore(connection: session.connection).find(handle: handle) else {
            throw CLIError.notFound("unknown user '\(handle)'")
        }
        var summaries: [ImportSummary] = []
        var failures: [CLIError] = []
        for file in files {
            do {
                summaries.append(
                    try importFile(file, user: user, connection: session.connection, options: options, console: console)
                )
            } catch let error as CLIError {
                failures.append(error)
            }
        }
        switch format {
        case .json:
            struct Document: Encodable { var imports: [ImportSummary] }
            console.print(try JSONText.encode(Document(imports: summaries)))
        default:
            if !options.isQuiet {
                for summary in summaries { console.print(summary.text) }
            }
        }
        guard let first = failures.first else { return }
        for failure in failures.dropLast() { console.note("sleepledger: \(failure.message)") }
        throw CLIError(first.exitCode, failures.last?.message ?? first.message)
    }

    /// Reads one input and, unless dry-running, loads it; failures become `CLIError`s
    /// after the failed run is recorded.
    static func importFile(
        _ file: String, user: User, connection: Connection, options: ImportRunOptions, console: Console
    ) throws -> ImportSummary {
        let source = ImportSource(argument: file)
        let reader = HealthImportReader(options: ReaderOptions(progressIntervalBytes: 1 << 20))
        let progress = ImportProgressLine(
            console: console, isEnabled: console.isTerminal && !options.isQuiet, name: file)
        defer { progress.finish() }
        let clock = ContinuousClock()
        let started = clock.now
        func elapsed() -> Double {
            let duration = clock.now - started
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        if options.isDryRun {
            do {
                let report = try reader.read(source, onSample: { _, _ in }, onProgress: progress.update)
                try checkStrict(report, options: options)
                return ImportSummary(report: report, outcome: nil, dryRun: true, seconds: elapsed())
            } catch {
                throw cliError(for: error, file: file)
            }
        }
        let loader = SampleLoader(connection: connection)
        let start = ImportAudit(fileName: file, isFromStandardInput: file == "-")
        var lastReport: ReadReport?
        do {
            let outcome = try loader.load(userID: user.id, userTimeZone: user.timeZoneIdentifier, audit: start) {
                sink in
                let report = try reader.read(
                    source, onSample: { sample, _ in try sink.append(sample) }, onProgress: progress.update)
                lastReport = report
                try checkStrict(report, options: options)
                var audit = try audit(start, from: report)
                audit.durationSeconds = elapsed()
                return audit
            }
            guard let report = lastReport else {
                throw CLIError(.internalError, "the import finished without a report")
            }
            return ImportSummary(report: report, outcome: outcome, dryRun: false, seconds: elapsed())
        } catch {
            progress.finish()
            let failure = cliError(for: error, file: file)
            var failed = start
            if let lastReport, let filled = try? audit(start, from: lastReport) { failed = filled }
            if failed.sizeBytes == nil, file != "-",
                let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber
            {
                failed.sizeBytes = size.int64Value
            }
            failed.durationSeconds = elapsed()
            if connection.isOpen, !connection.isInTransaction {
                do {
                    try loader.recordFailure(userID: user.id, audit: failed, error: failure.message)
                } catch {
                    console.note("sleepledger: could not record the failed import: \(error)")
                }
            }
            if let storeError = error as? StoreError { throw storeError }
            throw failure
        }
    }

    static func checkStrict(_ report: ReadReport, options: ImportRunOptions) throws {
        if options.isStrict, report.rejected > 0 {
            throw StrictRejection(rejected: report.rejected, first: report.diagnostics.first)
        }
    }

    /// The audit row's fields from a reader's report.
    static func audit(_ start: ImportAudit, from report: ReadReport) throws -> ImportAudit {
        var audit = start
        audit.sizeBytes = report.inputBytes
        audit.sha256 = report.sha256.isEmpty ? nil : report.sha256
        audit.kind = report.kind.rawValue
        audit.entryName = report.entryName
        audit.recordsSeen = report.recordsSeen
        audit.samplesRead = report.accepted + report.rejected
        audit.samplesAccepted = report.accepted
        audit.samplesRejected = report.rejected
        audit.stageCounts = report.stageCounts
        audit.earliestStart = report.earliestStart
        audit.latestEnd = report.latestEnd
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        audit.warningsJSON = String(decoding: try encoder.encode(report.warnings), as: UTF8.self)
        audit.diagnosticsJSON = String(decoding: try encoder.encode(report.diagnostics), as: UTF8.self)
        audit.diagnosticsNotKept = report.diagnosticsNotKept
        return audit
    }

    /// One line a person can act on, with the exit code docs/cli.md gives it.
    static func cliError(for error: any Error, file: String) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case ImportError.badFile(let name, let line, let reason):
            return CLIError(.dataError, line.map { "\(name):\($0): \(reason)" } ?? "\(name): \(reason)")
        case ImportError.io(let name, let reason):
            return CLIError(.noInput, "cannot read \(name): \(reason)")
        case let error as StrictRejection:
            var message =
                "\(file): --strict: \(error.rejected) record\(error.rejected == 1 ? "" : "s") rejected, nothing imported"
            if let first = error.first { message += "; first: \(first)" }
            return CLIError(.dataError, message)
        case let error as StoreError:
            return CLIError(error.exitCode, SleepLedgerTool.oneLine(error.description))
        default:
            return CLIError(.internalError, "internal error: \(error)")
        }
    }
}

/// The flags of one `sleepledger import` run.
struct ImportRunOptions {
    /// `--dry-run`: read and report, write nothing.
    var isDryRun: Bool
    /// `--strict`: any rejected record fails the file.
    var isStrict: Bool
    /// `--quiet`: no progress line, no text summary.
    var isQuiet: Bool
}
