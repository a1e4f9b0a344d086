import Foundation
import HealthImport
import LedgerServices
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

        Imports of one user run one after the other: while another one runs, an import
        waits up to SLEEPLEDGER_IMPORT_LOCK_WAIT seconds (default 60), then gives up with
        exit 75. A pipe or standard input that sends nothing for
        SLEEPLEDGER_IMPORT_IDLE_TIMEOUT seconds (default 300) fails its file (exit 66).
        """

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
                throw CLIError.notFound("cannot read \(MessageText.escaped(file)): no such file")
            }
            if isDirectory.boolValue {
                throw CLIError.notFound("cannot read \(MessageText.escaped(file)): is a directory")
            }
        }
        let configuration = try Configuration(environment: environment, isTerminal: console.isTerminal)
        let options = ImportRunOptions(
            isDryRun: arguments.has("dry-run"), isStrict: arguments.has("strict"), isQuiet: arguments.has("quiet"),
            idleTimeoutSeconds: configuration.importIdleTimeoutSeconds,
            lockWaitSeconds: configuration.importLockWaitSeconds)
        let session = try configuration.database.open(access: options.isDryRun ? .reads : .writes)
        defer { session.close() }
        let user = try UserService(session: session).user(handle: handle)
        let service = ImportService(session: session)
        var summaries: [ImportSummary] = []
        var failures: [CLIError] = []
        for file in files {
            do {
                summaries.append(try importFile(file, user: user, service: service, options: options, console: console))
            } catch {
                // A bad input fails alone and the next one is still imported; anything
                // else (the database) ends the run.
                guard error.kind == .refusedInput || error.kind == .unreadableInput else { throw error }
                failures.append(CLIError(error))
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
        for failure in failures.dropLast() { console.note("sleepledger: \(MessageText.escaped(failure.message))") }
        throw CLIError(first.exitCode, failures.last?.message ?? first.message)
    }

    /// Imports one input through the service with a progress line on a terminal.
    static func importFile(
        _ file: String, user: User, service: ImportService, options: ImportRunOptions, console: Console
    ) throws(ServiceError) -> ImportSummary {
        let progress = ImportProgressLine(
            console: console, isEnabled: console.isTerminal && !options.isQuiet, name: file)
        defer { progress.finish() }
        let result = try service.importInput(
            ImportSource(argument: file), for: user,
            options: ImportService.Options(
                isDryRun: options.isDryRun, isStrict: options.isStrict,
                reader: ReaderOptions(progressIntervalBytes: 1 << 20, idleTimeoutSeconds: options.idleTimeoutSeconds),
                lockWaitSeconds: options.lockWaitSeconds),
            onProgress: progress.update,
            onLockWait: { holder in
                guard !options.isQuiet else { return }
                console.note(
                    "sleepledger: \(file): waiting up to \(ImportService.secondsText(options.lockWaitSeconds)) for "
                        + "\(ImportLockHolder.text(holder, handle: user.handle)) to finish")
            })
        return ImportSummary(
            report: result.report, outcome: result.outcome, dryRun: result.isDryRun, seconds: result.seconds)
    }
}

/// The flags of one `sleepledger import` run.
struct ImportRunOptions {
    /// `--dry-run`: read and report, write nothing.
    var isDryRun: Bool
    /// `--strict`: any rejected record fails the file.
    var isStrict: Bool
    /// `--quiet`: no progress line, no text summary, no note while waiting for the lock.
    var isQuiet: Bool
    /// `SLEEPLEDGER_IMPORT_IDLE_TIMEOUT`: seconds a pipe may send nothing.
    var idleTimeoutSeconds: Double
    /// `SLEEPLEDGER_IMPORT_LOCK_WAIT`: seconds to wait for another import of the user.
    var lockWaitSeconds: Double
}
