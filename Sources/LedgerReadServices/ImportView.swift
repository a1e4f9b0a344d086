public import LedgerStore

/// One import as every front end shows it (the API's import document, the imports page's
/// row): an upload queued for import (a job, with the `imports` row its import made), or an
/// import made with `sleepledger import` (an `imports` row no job made).
public struct ImportView: Sendable, Hashable {
    /// How the import came.
    public enum Origin: Sendable, Hashable {
        /// An upload to the server (or a Health Auto Export push), queued as a job.
        case upload
        /// `sleepledger import` on the server's host.
        case command
    }

    /// Where an import is: queued, running, done, failed or cancelled (a command-line
    /// import is running, done or failed), in the queue's words.
    public typealias State = ImportJobStore.State

    /// What the importer counted.
    public struct Counts: Sendable, Hashable {
        /// Samples read.
        public var read: Int64
        /// New samples stored.
        public var inserted: Int64
        /// Samples already stored.
        public var duplicate: Int64
        /// Records refused (the diagnostics say why).
        public var rejected: Int64
    }

    /// How the import came.
    public var origin: Origin
    /// The person's import number (1, 2, 3, ... per person, uploads and command-line imports
    /// together), which the API and the pages call the import's id: an upload's job's, or a
    /// command-line import's record's. `nil` only in the admin tool's list, for the record of
    /// a queued upload's failed import (its job, which shows it, names only a done import).
    public var number: Int64?
    /// The `imports` row its import made (`nil` until an upload's import ran).
    public var importID: Int64?
    /// What the importer found the file to be (`zip`, `xml`, `csv`, `unknown`), when the
    /// `imports` row was read; `nil` for an upload's view.
    public var kind: String?
    /// Where it is.
    public var state: State
    /// The file's name as it came.
    public var fileName: String
    /// Its content type (an upload's), if it had one.
    public var contentType: String?
    /// Its size in bytes (0 when a failed command-line import never learned it).
    public var sizeBytes: Int64
    /// SHA-256 of an upload's bytes, lowercase hex; `nil` for a command-line import.
    public var sha256: String?
    /// When it was queued (an upload) or started (a command-line import), epoch seconds.
    public var createdAt: Int64
    /// When a worker last started it (an upload) or it started, epoch seconds.
    public var startedAt: Int64?
    /// When it ended, epoch seconds.
    public var finishedAt: Int64?
    /// How many times a worker started it (1 for a command-line import).
    public var attempts: Int
    /// Why it failed, when the queue recorded a reason.
    public var error: String?
    /// The counts, once it ran.
    public var counts: Counts?
    /// One line per stored diagnostic (``ImportHistory/diagnosticLines(_:)``).
    public var diagnostics: [String]

    /// An upload's view: its job and the `imports` row its import made.
    public init(_ job: ImportJobStore.Job) {
        origin = .upload
        number = job.number
        importID = job.importID
        kind = nil
        state = job.state
        fileName = job.fileName
        contentType = job.contentType
        sizeBytes = job.sizeBytes
        sha256 = job.sha256
        createdAt = job.createdAt
        startedAt = job.startedAt
        finishedAt = job.finishedAt
        attempts = job.attempts
        error = job.error
        counts = job.sampleCounts.map {
            Counts(read: $0.read, inserted: $0.inserted, duplicate: $0.duplicate, rejected: $0.rejected)
        }
        diagnostics = job.diagnosticsJSON.map(ImportHistory.diagnosticLines) ?? []
    }

    /// The view of an `imports` row (`running`, `succeeded` or `failed`): a command-line
    /// import's, or the import the upload of import number `jobNumber` made.
    public init(_ record: AdminImportRecord, madeByJob jobNumber: Int64? = nil) {
        origin = jobNumber != nil || record.number == nil ? .upload : .command
        number = jobNumber ?? record.number
        importID = record.id
        kind = record.kind
        state = record.status == "succeeded" ? .done : record.status == "running" ? .running : .failed
        fileName = record.fileName
        contentType = nil
        sizeBytes = record.sizeBytes
        sha256 = nil
        createdAt = record.startedAt
        startedAt = record.startedAt
        finishedAt = record.finishedAt
        attempts = 1
        error = nil
        counts = Counts(
            read: record.samplesRead, inserted: record.samplesInserted, duplicate: record.samplesDuplicate,
            rejected: record.samplesRejected)
        diagnostics = ImportHistory.diagnosticLines(record.diagnosticsJSON)
    }

    /// The status word of an import record: `running`, `succeeded` or `failed`.
    public var recordStatus: String {
        switch state {
        case .running, .queued: "running"
        case .done: "succeeded"
        case .failed, .cancelled: "failed"
        }
    }
}
