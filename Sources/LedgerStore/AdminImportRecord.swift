/// One row of a user's import history (table `imports`), as `sleepledger-admin imports`
/// shows it.
public struct AdminImportRecord: Sendable, Hashable {
    /// The import's id.
    public let id: Int64
    /// The file name as given to `sleepledger import`.
    public let fileName: String
    /// The file's size in bytes (0 when a failed import never learned it).
    public let sizeBytes: Int64
    /// `zip`, `xml` or `csv`; `unknown` for a failed import refused before its kind was known.
    public let kind: String
    /// `running`, `succeeded` or `failed`.
    public let status: String
    /// When the import started, epoch seconds.
    public let startedAt: Int64
    /// When it finished, epoch seconds; `nil` while running.
    public let finishedAt: Int64?
    /// Sleep samples read from the file.
    public let samplesRead: Int64
    /// Samples stored as new.
    public let samplesInserted: Int64
    /// Samples already stored before.
    public let samplesDuplicate: Int64
    /// Samples rejected by validation.
    public let samplesRejected: Int64
    /// The diagnostics as stored: a JSON array.
    public let diagnosticsJSON: String
    /// The person's import number of an import made with `sleepledger import`; `nil` for a
    /// queued upload's import, whose job has the number.
    public let number: Int64?

    /// Creates a record; ``AdminQueries/imports(userID:)`` is the normal source.
    public init(
        id: Int64, fileName: String, sizeBytes: Int64, kind: String, status: String, startedAt: Int64,
        finishedAt: Int64?, samplesRead: Int64, samplesInserted: Int64, samplesDuplicate: Int64,
        samplesRejected: Int64, diagnosticsJSON: String, number: Int64? = nil
    ) {
        self.id = id
        self.fileName = fileName
        self.sizeBytes = sizeBytes
        self.kind = kind
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.samplesRead = samplesRead
        self.samplesInserted = samplesInserted
        self.samplesDuplicate = samplesDuplicate
        self.samplesRejected = samplesRejected
        self.diagnosticsJSON = diagnosticsJSON
        self.number = number
    }
}
