public import PostgresClient
import SleepCore

/// The read-only queries of `sleepledger-admin` that ``UserStore``, ``NightStore`` and
/// ``SummaryStore`` do not already answer: the all-users overview and import history.
/// Every statement is a plain `SELECT`; run them inside a read-only transaction.
public struct AdminQueries {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates the queries over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// One row per user, ordered by handle: settings, tracked nights (of the stored 10y
    /// summary: counting the `nights` table itself would read every night of every user),
    /// the latest stored night, the stored weekly summary's headline, last import and last
    /// rollup.
    public func userOverviews() throws -> [AdminUserOverview] {
        let result = try connection.execute(
            """
            SELECT u.id, u.handle, u.time_zone, u.target_seconds, u.minimum_seconds, u.created_at,
                   coalesce(decade.tracked_nights, 0), latest.wake_day, latest.asleep_seconds,
                   s.as_of, s.debt_seconds, s.net_balance_seconds, s.severity, s.score, s.grade,
                   s.tracked_nights, s.last_night_wake_day, s.last_night_asleep_seconds, s.computed_at,
                   (SELECT max(i.started_at) FROM imports i WHERE i.user_id = u.id),
                   r.last_rollup_at, u.work_days, u.target_mode
            FROM users u
            LEFT JOIN summaries decade ON decade.user_id = u.id AND decade.horizon = '10y'
            LEFT JOIN LATERAL (
                SELECT wake_day, asleep_seconds FROM nights WHERE user_id = u.id ORDER BY wake_day DESC LIMIT 1
            ) latest ON true
            LEFT JOIN summaries s ON s.user_id = u.id AND s.horizon = 'weekly'
            LEFT JOIN rollup_state r ON r.user_id = u.id
            ORDER BY u.handle_key, u.id
            """, name: "admin.userOverviews")
        return try result.rows.map { row in
            guard let id = try row.int64(0), let handle = try row.string(1), let zone = try row.string(2),
                let target = try row.int64(3), let minimum = try row.int64(4),
                let createdAt = try row.epochSeconds(5), let tracked = try row.int(6)
            else {
                throw StoreError(.decodingFailed, "a users row has a NULL column", statement: "admin.userOverviews")
            }
            let user = User(
                id: id, handle: handle, timeZoneIdentifier: zone,
                goals: SleepGoals(
                    targetSeconds: target, minimumSeconds: minimum,
                    workDays: WorkDays(mask: Int(try row.int64(21) ?? 31)),
                    target: SleepTarget(rawValue: try row.string(22) ?? "") ?? .fixed),
                createdAt: createdAt)
            var weekly: SummaryHeadline?
            if let asOf = try row.localDate(9), let debt = try row.int64(10), let net = try row.int64(11),
                let severity = try row.string(12).flatMap(DebtSeverity.init(rawValue:)),
                let score = try row.int(13), let grade = try row.string(14).flatMap(SleepGrade.init(rawValue:)),
                let summaryNights = try row.int(15), let computedAt = try row.epochSeconds(18)
            {
                weekly = SummaryHeadline(
                    userID: id, handle: handle, horizon: .weekly, asOf: asOf, debtSeconds: debt,
                    netBalanceSeconds: net, severity: severity, score: score, grade: grade,
                    trackedNights: summaryNights, lastNightWakeDay: try row.localDate(16),
                    lastNightAsleepSeconds: try row.int64(17), computedAt: computedAt)
            }
            return AdminUserOverview(
                user: user, trackedNights: tracked, lastNightWakeDay: try row.localDate(7),
                lastNightAsleepSeconds: try row.int64(8), weekly: weekly,
                lastImportAt: try row.epochSeconds(19), lastRollupAt: try row.epochSeconds(20))
        }
    }

    /// Whether the rollup stored any night for the user.
    public func hasNights(userID: Int64) throws -> Bool {
        try connection.executePrepared(
            "SELECT EXISTS (SELECT FROM nights WHERE user_id = $1)", [.int64(userID)], name: "admin.hasNights"
        ).single().bool(0) ?? false
    }

    /// Whether any sleep sample of the user is stored.
    public func hasSamples(userID: Int64) throws -> Bool {
        try connection.execute(
            "SELECT EXISTS (SELECT FROM sleep_samples WHERE user_id = $1)", [.int64(userID)],
            name: "admin.hasSamples"
        ).single().bool(0) ?? false
    }

    /// When the user's latest import started (epoch seconds), or `nil` when there is none.
    public func latestImportStart(userID: Int64) throws -> Int64? {
        try connection.execute(
            "SELECT max(started_at) FROM imports WHERE user_id = $1", [.int64(userID)], name: "admin.latestImportStart"
        ).first?.epochSeconds(0)
    }

    /// The user's imports, newest first.
    public func imports(userID: Int64) throws -> [AdminImportRecord] {
        let result = try connection.execute(
            """
            SELECT id, file_name, coalesce(size_bytes, 0), coalesce(kind, 'unknown'), status, started_at, finished_at, samples_read,
                   samples_inserted, samples_duplicate, samples_rejected, diagnostics::text, number
            FROM imports WHERE user_id = $1 ORDER BY started_at DESC, id DESC
            """, [.int64(userID)], name: "admin.imports")
        return try result.rows.map { row in
            guard let id = try row.int64(0), let file = try row.string(1), let size = try row.int64(2),
                let kind = try row.string(3), let status = try row.string(4), let started = try row.epochSeconds(5),
                let read = try row.int64(7), let inserted = try row.int64(8), let duplicate = try row.int64(9),
                let rejected = try row.int64(10), let diagnostics = try row.string(11)
            else { throw StoreError(.decodingFailed, "an imports row has a NULL column", statement: "admin.imports") }
            return AdminImportRecord(
                id: id, fileName: file, sizeBytes: size, kind: kind, status: status, startedAt: started,
                finishedAt: try row.epochSeconds(6), samplesRead: read, samplesInserted: inserted,
                samplesDuplicate: duplicate, samplesRejected: rejected, diagnosticsJSON: diagnostics,
                number: try row.int64(12))
        }
    }
}
