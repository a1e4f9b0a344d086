/// One import as the history shows it: the queued upload and, once it ran, its counts and
/// diagnostics (the fields of `GET /api/v1/imports/{id}`, as plain values).
public struct ImportRow: Sendable, Hashable {
    /// Where an import is.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Waiting for a worker.
        case queued
        /// Being imported.
        case running
        /// Imported.
        case done
        /// Refused by the importer (``ImportRow/error`` says why).
        case failed
        /// Cancelled before it ran.
        case cancelled
    }

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

        /// Counts.
        public init(read: Int64, inserted: Int64, duplicate: Int64, rejected: Int64) {
            self.read = read
            self.inserted = inserted
            self.duplicate = duplicate
            self.rejected = rejected
        }
    }

    /// The person's import number (1, 2, 3, ... per person, uploads and imports made with
    /// `sleepledger import` in one numbering): the API's id of an upload.
    public var id: Int64
    /// Whether it was made with `sleepledger import` rather than uploaded.
    public var isCommandLine: Bool
    /// Where it is.
    public var state: State
    /// The uploaded file's name (a person's value: escaped when shown).
    public var fileName: String
    /// Its size.
    public var sizeBytes: Int64
    /// When it was uploaded, seconds since 1970.
    public var createdAt: Int64
    /// When it ended, seconds since 1970.
    public var finishedAt: Int64?
    /// The counts, once it ran.
    public var counts: Counts?
    /// One line per rejected record (`file:line: reason`), and other findings.
    public var diagnostics: [String]
    /// Why it failed.
    public var error: String?

    /// An import.
    public init(
        id: Int64, isCommandLine: Bool = false, state: State, fileName: String, sizeBytes: Int64, createdAt: Int64,
        finishedAt: Int64? = nil, counts: Counts? = nil, diagnostics: [String] = [], error: String? = nil
    ) {
        self.id = id
        self.isCommandLine = isCommandLine
        self.state = state
        self.fileName = fileName
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.counts = counts
        self.diagnostics = diagnostics
        self.error = error
    }
}
