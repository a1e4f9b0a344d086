import Foundation
public import HealthImport
public import LedgerStore
import PostgresClient
import SleepCore

/// Importing Apple Health exports: one input (an `export.zip`, `export.xml`, a CSV of
/// sleep samples, standard input or an open descriptor) for one user, read and stored in
/// one transaction, recorded in the user's import history whether it succeeds or fails.
///
/// A refused input, a failed load or a strict import with rejected records stores no
/// sample; the failure is recorded as a failed import (in a transaction of its own) and
/// thrown as a ``ServiceError``.
public struct ImportService {
    /// How one input is imported.
    public struct Options: Sendable, Hashable {
        /// Read and report only; write nothing, record nothing.
        public var isDryRun: Bool
        /// Refuse the whole input when any record is rejected.
        public var isStrict: Bool
        /// The reader's limits, the idle timeout of a pipe or standard input
        /// (``HealthImport/ReaderOptions/idleTimeoutSeconds``) among them.
        public var reader: ReaderOptions
        /// How long to wait, in seconds, while another import of the same user (or its
        /// removal) holds the user's import lock, before giving up with ``ServiceError/Kind/busy``.
        /// Default 60 (``LedgerStore/SampleLoader/defaultLockWaitSeconds``).
        public var lockWaitSeconds: Double
        /// Whether the input is a queued upload that a worker imports: its job has the
        /// person's import number, so the import's record takes none. Default `false`: an
        /// import made with `sleepledger import` takes the person's next number.
        public var isQueuedUpload: Bool

        /// Creates options; by default a normal import with the reader's default limits.
        public init(
            isDryRun: Bool = false, isStrict: Bool = false, reader: ReaderOptions = .standard,
            lockWaitSeconds: Double = SampleLoader.defaultLockWaitSeconds, isQueuedUpload: Bool = false
        ) {
            self.isDryRun = isDryRun
            self.isStrict = isStrict
            self.reader = reader
            self.lockWaitSeconds = lockWaitSeconds
            self.isQueuedUpload = isQueuedUpload
        }
    }

    /// What one imported input gave.
    public struct Result: Sendable, Hashable {
        /// What the reader found: identity, counts, date range, warnings, diagnostics.
        public var report: ReadReport
        /// What was stored; `nil` on a dry run.
        public var outcome: ImportOutcome?
        /// Whether this was a dry run.
        public var isDryRun: Bool
        /// Wall-clock seconds the import took.
        public var seconds: Double
    }

    /// The session every call uses; not inside a transaction.
    public let session: LedgerSession

    /// Creates the service over `session`.
    public init(session: LedgerSession) {
        self.session = session
    }

    /// Imports `source` for `user`. `onProgress` is called on the calling thread as the
    /// input is read.
    ///
    /// Imports of one user run one after the other. When another one holds the user's
    /// import lock, `onLockWait` is called with what holds it (`nil` when that cannot be
    /// told) and the import waits at most ``Options/lockWaitSeconds``; then it fails with
    /// ``ServiceError/Kind/busy``, naming the holder, without reading the input or
    /// recording anything. An input that stalls (no byte for the reader's idle timeout)
    /// fails as ``ServiceError/Kind/unreadableInput``, is recorded as a failed import and
    /// releases the lock.
    public func importInput(
        _ source: ImportSource, for user: User, options: Options = Options(),
        onProgress: (ImportProgress) -> Void = { _ in },
        onLockWait: (ImportLockHolder?) -> Void = { _ in }
    ) throws(ServiceError) -> Result {
        let reader = HealthImportReader(options: options.reader)
        let clock = ContinuousClock()
        let started = clock.now
        func elapsed() -> Double { Self.seconds(clock.now - started) }
        let name = source.name
        if options.isDryRun {
            return try ServiceError.wrapping {
                let report = try reader.read(source, onSample: { _, _ in }, onProgress: onProgress)
                try Self.checkStrict(report, options: options, name: name)
                return Result(report: report, outcome: nil, isDryRun: true, seconds: elapsed())
            }
        }
        let connection = session.connection
        let loader = SampleLoader(connection: connection, lockWaitSeconds: options.lockWaitSeconds)
        var start = ImportAudit(fileName: name, isFromStandardInput: source == .standardInput)
        start.takesNumber = !options.isQueuedUpload
        var lastReport: ReadReport?
        do {
            let outcome = try loader.load(
                userID: user.id, userTimeZone: user.timeZoneIdentifier, audit: start, onLockWait: onLockWait
            ) { sink in
                let report = try reader.read(
                    source, onSample: { sample, _ in try sink.append(sample) }, onProgress: onProgress)
                lastReport = report
                try Self.checkStrict(report, options: options, name: name)
                var audit = try Self.audit(start, from: report)
                audit.durationSeconds = elapsed()
                return audit
            }
            guard let report = lastReport else {
                throw ServiceError(.internalFailure, "the import finished without a report")
            }
            return Result(report: report, outcome: outcome, isDryRun: false, seconds: elapsed())
        } catch let error as StoreError where error.kind == .busy {
            // Nothing was read: not an import that ran, so nothing is recorded.
            let holder = try? ImportLock(connection: connection).holder(userID: user.id)
            throw ServiceError(
                .busy,
                "\(name): \(ImportLockHolder.text(holder, handle: user.handle)) still holds the user's import lock "
                    + "after \(Self.secondsText(options.lockWaitSeconds)); nothing was imported, try again when it has finished",
                debugDetail: holder.map { "holder's server process id \($0.serverProcessID)" })
        } catch let error as StoreError where error.kind == .notFound && error.statement == "imports.lockUser" {
            // Removed while this import waited for the lock: nothing to record it under.
            throw ServiceError(.notFound, "no user with handle '\(user.handle)': removed while this import waited")
        } catch {
            var failure = ServiceError(error)
            var failed = start
            if let lastReport, let filled = try? Self.audit(start, from: lastReport) { failed = filled }
            if failed.sizeBytes == nil, case .path(let path) = source,
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
            {
                failed.sizeBytes = size.int64Value
            }
            failed.durationSeconds = elapsed()
            // Recorded in a transaction of its own, or in a savepoint when the import ran
            // inside a caller's transaction (the server's per-user transactions).
            if connection.isOpen, !connection.isInFailedTransaction {
                do {
                    try loader.recordFailure(userID: user.id, audit: failed, error: failure.message)
                } catch {
                    failure.message += "; the failed import could not be recorded: \(ServiceError(error).message)"
                }
            }
            throw failure
        }
    }

    /// A strict import refuses the input when any record was rejected.
    static func checkStrict(_ report: ReadReport, options: Options, name: String) throws(ServiceError) {
        guard options.isStrict, report.rejected > 0 else { return }
        var message =
            "\(MessageText.escaped(name)): --strict: \(report.rejected) record\(report.rejected == 1 ? "" : "s") "
            + "rejected, nothing imported"
        if let first = report.diagnostics.first { message += "; first: \(MessageText.escaped(first.description))" }
        throw ServiceError(.refusedInput, message)
    }

    /// The most bytes of diagnostics JSON an audit row stores, whatever the reader's
    /// options: the default reader keeps at most about 1.6 MB of them; a caller that
    /// raises ``ReaderOptions/maximumDiagnostics`` gets the first ones up to this size and
    /// the rest counted (PostgreSQL refuses a jsonb array past 256 MB, which failed the
    /// import and then its record too).
    public static let maximumDiagnosticsJSONBytes = 4 << 20

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
        var warnings = report.warnings
        var stored: [String] = []
        var storedBytes = 2
        for diagnostic in report.diagnostics {
            let json = String(decoding: try encoder.encode(diagnostic), as: UTF8.self)
            guard storedBytes + json.utf8.count + 1 <= maximumDiagnosticsJSONBytes else { break }
            stored.append(json)
            storedBytes += json.utf8.count + 1
        }
        let notStored = report.diagnostics.count - stored.count
        if notStored > 0 {
            warnings.append(
                "\(notStored) diagnostic(s) not stored: the import's record keeps at most \(maximumDiagnosticsJSONBytes) bytes of them"
            )
        }
        audit.warningsJSON = String(decoding: try encoder.encode(warnings), as: UTF8.self)
        audit.diagnosticsJSON = "[" + stored.joined(separator: ",") + "]"
        audit.diagnosticsNotKept = report.diagnosticsNotKept + notStored
        return audit
    }

    /// A number of seconds for a message: `60 s`, `0.5 s`.
    public static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? "\(Int64(seconds)) s" : "\(seconds) s"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
