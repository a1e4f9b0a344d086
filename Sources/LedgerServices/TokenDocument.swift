public import LedgerStore
import SleepReports

/// One API token as `GET /api/v1/tokens` and `sleepledger token list --format json` show
/// it: never its secret (instants in ISO 8601 UTC; the id as the token writes it).
public struct TokenDocument: Encodable, Sendable, Hashable {
    /// The token's id: 16 hex digits.
    public var id: String
    /// What the person called it.
    public var name: String
    /// `ingest` or `full`.
    public var scope: String
    /// When it was created.
    public var createdAt: String
    /// When it last authenticated a request (at most once a minute is recorded).
    public var lastUsedAt: String?
    /// When it was revoked.
    public var revokedAt: String?

    /// The document of `record`.
    public init(_ record: TokenStore.Record) {
        id = TokenService.idText(record.id)
        name = record.name
        scope = record.scope.rawValue
        createdAt = ReportFormat.isoUTC(record.createdAt)
        lastUsedAt = record.lastUsedAt.map { ReportFormat.isoUTC($0) }
        revokedAt = record.revokedAt.map { ReportFormat.isoUTC($0) }
    }

    enum CodingKeys: String, CodingKey {
        case id, name, scope
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case revokedAt = "revoked_at"
    }
}
