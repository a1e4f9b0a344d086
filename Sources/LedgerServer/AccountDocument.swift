import LedgerServices
import LedgerStore
import SleepReports

/// `GET /api/v1/me` and `PATCH /api/v1/me`: the caller's handle, settings and bookkeeping
/// times (instants in ISO 8601 UTC), and their access: valid web sessions and API tokens
/// (revoked ones included), never a secret.
struct AccountDocument: Encodable {
    var handle: String
    var timeZone: String
    var targetSeconds: Int64
    var minimumSeconds: Int64
    var workDays: [Int]
    var targetMode: String
    var lastImportAt: String?
    var lastRollupAt: String?
    var rollupPending: Bool
    var sessions: [SessionDocument]
    var tokens: [TokenDocument]

    init(_ account: UserService.Account, sessions: [WebSessionStore.Listed], tokens: [TokenStore.Record]) {
        handle = account.user.handle
        timeZone = account.user.timeZoneIdentifier
        targetSeconds = account.user.goals.targetSeconds
        minimumSeconds = account.user.goals.minimumSeconds
        workDays = account.user.goals.workDays.isoWeekdays
        targetMode = account.user.goals.target.rawValue
        lastImportAt = account.lastImportAt.map { ReportFormat.isoUTC($0) }
        lastRollupAt = account.lastRollupAt.map { ReportFormat.isoUTC($0) }
        rollupPending = account.isRollupPending
        self.sessions = sessions.map(SessionDocument.init)
        self.tokens = tokens.map(TokenDocument.init)
    }

    enum CodingKeys: String, CodingKey {
        case handle
        case timeZone = "time_zone"
        case targetSeconds = "target_seconds"
        case minimumSeconds = "minimum_seconds"
        case workDays = "work_days"
        case targetMode = "target_mode"
        case lastImportAt = "last_import_at"
        case lastRollupAt = "last_rollup_at"
        case rollupPending = "rollup_pending"
        case sessions, tokens
    }
}
