import LedgerServices
import SleepReports

/// `GET /api/v1/me` and `PATCH /api/v1/me`: the caller's handle, settings and bookkeeping
/// times (instants in ISO 8601 UTC).
struct AccountDocument: Encodable {
    var handle: String
    var timeZone: String
    var targetSeconds: Int64
    var minimumSeconds: Int64
    var lastImportAt: String?
    var lastRollupAt: String?
    var rollupPending: Bool

    init(_ account: UserService.Account) {
        handle = account.user.handle
        timeZone = account.user.timeZoneIdentifier
        targetSeconds = account.user.goals.targetSeconds
        minimumSeconds = account.user.goals.minimumSeconds
        lastImportAt = account.lastImportAt.map { ReportFormat.isoUTC($0) }
        lastRollupAt = account.lastRollupAt.map { ReportFormat.isoUTC($0) }
        rollupPending = account.isRollupPending
    }

    enum CodingKeys: String, CodingKey {
        case handle
        case timeZone = "time_zone"
        case targetSeconds = "target_seconds"
        case minimumSeconds = "minimum_seconds"
        case lastImportAt = "last_import_at"
        case lastRollupAt = "last_rollup_at"
        case rollupPending = "rollup_pending"
    }
}
