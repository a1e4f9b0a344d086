import LedgerStore
import SleepReports

/// One web session as `GET /api/v1/me` lists it: when it started, was last used and ends,
/// the client address of its last recorded use, and whether it is the session asking;
/// never its id or the id's hash.
struct SessionDocument: Encodable {
    var createdAt: String
    var lastUsedAt: String
    var expiresAt: String
    var address: String?
    var current: Bool

    init(_ session: WebSessionStore.Listed) {
        createdAt = ReportFormat.isoUTC(session.createdAt)
        lastUsedAt = ReportFormat.isoUTC(session.lastUsedAt)
        expiresAt = ReportFormat.isoUTC(session.expiresAt)
        address = session.address
        current = session.isCurrent
    }

    enum CodingKeys: String, CodingKey {
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
        case address, current
    }
}
