import LedgerServices
import LedgerStore
import SleepReports

/// One API token as `GET /api/v1/tokens` lists it: never its secret (instants in ISO 8601
/// UTC; the id as the token and `sleepledger token list` write it).
struct TokenDocument: Encodable {
    var id: String
    var name: String
    var scope: String
    var createdAt: String
    var lastUsedAt: String?
    var revokedAt: String?

    init(_ record: TokenStore.Record) {
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
