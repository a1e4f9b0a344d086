import SleepReports

/// One import as the API shows it (`GET /api/v1/imports/{id}`): the queued upload and,
/// once it ran, the counts and diagnostics of the import it produced (an ``ImportView``).
/// A person's data export lists every import so, command-line ones included.
public struct ImportDocument: Encodable, Sendable {
    /// What the importer counted.
    public struct Counts: Encodable, Sendable {
        var read: Int64
        var inserted: Int64
        var duplicate: Int64
        var rejected: Int64
    }

    /// The person's import number (1, 2, 3, ... per person), never the internal id.
    var id: Int64
    var state: String
    var fileName: String
    var contentType: String?
    var sizeBytes: Int64
    var sha256: String
    var createdAt: String
    var startedAt: String?
    var finishedAt: String?
    var attempts: Int
    var error: String?
    var counts: Counts?
    var diagnostics: [String]

    enum CodingKeys: String, CodingKey {
        case id, state, sha256, attempts, error, counts, diagnostics
        case fileName = "file_name"
        case contentType = "content_type"
        case sizeBytes = "size_bytes"
        case createdAt = "created_at"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
    }

    /// The document of an upload's view (with `includingCommandLine`, of an import made
    /// with `sleepledger import` too, which the API does not list); its `id` is the person's
    /// import number. `nil` for a view without a number or not of an upload.
    public init?(_ view: ImportView, includingCommandLine: Bool = false) {
        guard view.origin == .upload || includingCommandLine, let number = view.number else { return nil }
        id = number
        state = view.state.rawValue
        fileName = view.fileName
        contentType = view.contentType
        sizeBytes = view.sizeBytes
        sha256 = view.sha256 ?? ""
        createdAt = ReportFormat.isoUTC(view.createdAt)
        startedAt = view.startedAt.map { ReportFormat.isoUTC($0) }
        finishedAt = view.finishedAt.map { ReportFormat.isoUTC($0) }
        attempts = view.attempts
        error = view.error
        counts = view.counts.map {
            Counts(read: $0.read, inserted: $0.inserted, duplicate: $0.duplicate, rejected: $0.rejected)
        }
        diagnostics = view.diagnostics
    }
}
