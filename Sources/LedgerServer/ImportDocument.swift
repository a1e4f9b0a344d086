import LedgerServices
import LedgerStore
import SleepReports

/// One import as the API shows it (`GET /api/v1/imports/{id}`): the queued upload and,
/// once it ran, the counts and diagnostics of the import it produced (an ``ImportView``).
struct ImportDocument: Encodable {
    struct Counts: Encodable {
        var read: Int64
        var inserted: Int64
        var duplicate: Int64
        var rejected: Int64
    }

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

    /// The document of an upload's view (an import without a job has no id the API knows).
    init?(_ view: ImportView) {
        guard case .upload(let id) = view.origin else { return nil }
        self.id = id
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
