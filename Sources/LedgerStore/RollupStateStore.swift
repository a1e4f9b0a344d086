public import PostgresClient
public import SleepCore

/// The rollup's bookkeeping per user (table `rollup_state`): what changed since the last
/// rollup (`dirty_from`, `summaries_stale`), what it last used (`last_as_of`,
/// `nights_time_zone`), when it ran and how it last failed.
///
/// The rollup claims a user by locking its row (``claim(userID:)``, `FOR UPDATE SKIP
/// LOCKED`), so two runners never do one user at once and never wait for each other.
public struct RollupStateStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// One user's row as the rollup sees it.
    public struct UserState: Sendable, Hashable {
        /// The user's id.
        public var userID: Int64
        /// The user's handle.
        public var handle: String
        /// The user's zone now.
        public var timeZone: String
        /// The user's goals now (read by ``claim(userID:)``; the defaults in a work list).
        public var goals: SleepGoals
        /// The first wake day whose nights changed since the last rollup, if any.
        public var dirtyFrom: LocalDate?
        /// Whether the zone or goals changed since the last rollup.
        public var summariesStale: Bool
        /// The as-of day of the last rollup.
        public var lastAsOf: LocalDate?
        /// The zone the stored nights were built in.
        public var nightsTimeZone: String?
        /// The `PersonalSleepRules.version` the stored results were computed with (0 before
        /// issue 24).
        public var rulesVersion: Int = 0
    }

    /// Adds the missing rows (users added before their row existed); leaves existing rows
    /// alone without touching them, so no runner holding one is waited for.
    public func addMissingRows() throws {
        try connection.execute(
            """
            INSERT INTO rollup_state (user_id)
            SELECT id FROM users u WHERE NOT EXISTS (SELECT FROM rollup_state r WHERE r.user_id = u.id)
            ON CONFLICT (user_id) DO NOTHING
            """,
            name: "rollup.ensureState")
    }

    /// Every user's state (only the user whose handle has the key of `handle`, or with
    /// id `userID`, when given: see ``UserHandle``), by id, without locking. Goals are not
    /// read here.
    public func states(handle: String?, userID: Int64? = nil) throws -> [UserState] {
        try connection.execute(
            """
            SELECT u.id, u.handle, u.time_zone, r.dirty_from, r.summaries_stale, r.last_as_of, r.nights_time_zone,
                   r.rules_version
            FROM users u JOIN rollup_state r ON r.user_id = u.id
            WHERE ($1::text IS NULL OR u.handle_key = $1) AND ($2::bigint IS NULL OR u.id = $2)
            ORDER BY u.id
            """, [try handle.map { .text(try UserHandle.key($0)) }, userID.map { .int64($0) }],
            name: "rollup.workList"
        ).rows.map { row in
            guard let id = try row.int64(0), let handle = try row.string(1), let zone = try row.string(2),
                let stale = try row.bool(4)
            else { throw StoreError(.decodingFailed, "a users row has a NULL column", statement: "rollup.workList") }
            return UserState(
                userID: id, handle: handle, timeZone: zone, goals: SleepGoals(), dirtyFrom: try row.localDate(3),
                summariesStale: stale, lastAsOf: try row.localDate(5), nightsTimeZone: try row.string(6),
                rulesVersion: Int(try row.int64(7) ?? 0))
        }
    }

    /// Locks the user's row for the rest of the transaction and returns its state with the
    /// user's goals, or `nil` when another transaction holds it (or the user is gone).
    public func claim(userID: Int64) throws -> UserState? {
        guard
            let row = try connection.executePrepared(
                """
                SELECT u.handle, u.time_zone, u.target_seconds, u.minimum_seconds, r.dirty_from,
                       r.summaries_stale, r.last_as_of, r.nights_time_zone, r.rules_version, u.work_days, u.target_mode
                FROM rollup_state r JOIN users u ON u.id = r.user_id
                WHERE r.user_id = $1
                FOR UPDATE OF r SKIP LOCKED
                """, [.int64(userID)], name: "rollup.claim"
            ).first
        else { return nil }
        guard let handle = try row.string(0), let zone = try row.string(1), let target = try row.int64(2),
            let minimum = try row.int64(3), let stale = try row.bool(5)
        else { throw StoreError(.decodingFailed, "a rollup_state row has a NULL column", statement: "rollup.claim") }
        return UserState(
            userID: userID, handle: handle, timeZone: zone,
            goals: SleepGoals(
                targetSeconds: target, minimumSeconds: minimum, workDays: WorkDays(mask: Int(try row.int64(9) ?? 31)),
                target: SleepTarget(rawValue: try row.string(10) ?? "") ?? .fixed),
            dirtyFrom: try row.localDate(4),
            summariesStale: stale, lastAsOf: try row.localDate(6), nightsTimeZone: try row.string(7),
            rulesVersion: Int(try row.int64(8) ?? 0))
    }

    /// Clears a claimed user's marks after its results were written: rolled up as of
    /// `asOf` at `now` (epoch seconds), nights built in `timeZone` with rules `rulesVersion`
    /// (`PersonalSleepRules.version`), no failure; and replaces the person's row of
    /// `personal_estimates` (``PersonalEstimateStore``) by `need` and `chronotype` as of
    /// `asOf`, in the same statement: one round trip, not two, for every person of a
    /// nightly run.
    public func markRolledUp(
        userID: Int64, asOf: LocalDate, now: Int64, timeZone: String, need: SleepNeedEstimate,
        chronotype: Chronotype, rulesVersion: Int = PersonalSleepRules.version
    ) throws {
        let needText: String
        let chronotypeText: String
        do {
            needText = try StreamingJSONEncoder.text(of: need)
            chronotypeText = try StreamingJSONEncoder.text(of: chronotype)
        } catch {
            throw StoreError(.invalidValue, "an estimate could not be encoded", statement: "rollup.clearState")
        }
        try connection.executePrepared(
            """
            WITH estimates AS (
                INSERT INTO personal_estimates (user_id, as_of, rules_version, need_seconds, need_method,
                    msfsc_seconds, need, chronotype, computed_at)
                VALUES ($1, $2, $5, $6, $7, $8, $9, $10, $3)
                ON CONFLICT (user_id) DO UPDATE SET as_of = excluded.as_of, rules_version = excluded.rules_version,
                    need_seconds = excluded.need_seconds, need_method = excluded.need_method,
                    msfsc_seconds = excluded.msfsc_seconds, need = excluded.need, chronotype = excluded.chronotype,
                    computed_at = excluded.computed_at
            )
            UPDATE rollup_state SET dirty_from = NULL, summaries_stale = false, last_as_of = $2,
                last_rollup_at = $3, updated_at = $3, nights_time_zone = $4, last_error = NULL,
                failed_at = NULL, failure_count = 0, rules_version = $5
            WHERE user_id = $1
            """,
            [
                .int64(userID), .date(asOf), .timestamp(epochSeconds: now), .text(timeZone), .int(rulesVersion),
                .int64(need.needSeconds), .text(need.method.rawValue), chronotype.msfscSeconds.map { .int64($0) },
                .json(needText), .json(chronotypeText),
            ],
            name: "rollup.clearState")
    }

    /// Records a failed rollup of the user (message cut to 2,000 characters), unless
    /// another transaction holds its row. Never throws: recording is best effort.
    public func recordFailure(userID: Int64, message: String, now: Int64) {
        _ = try? connection.execute(
            """
            UPDATE rollup_state SET last_error = $2, failed_at = $3, failure_count = failure_count + 1
            WHERE user_id = (SELECT user_id FROM rollup_state WHERE user_id = $1 FOR UPDATE SKIP LOCKED)
            """, [.int64(userID), .text(String(message.prefix(2000))), .timestamp(epochSeconds: now)],
            name: "rollup.recordFailure")
    }

    /// When the rollup last wrote the user's results (epoch seconds) and the as-of day it
    /// used (both `nil` when it never did), and whether new samples or changed settings
    /// wait for the next rollup (`dirty_from` set or `summaries_stale`).
    public func lastRollup(userID: Int64) throws -> (at: Int64?, asOf: LocalDate?, isStale: Bool) {
        let result = try connection.execute(
            """
            SELECT last_rollup_at, last_as_of, (dirty_from IS NOT NULL OR summaries_stale)
            FROM rollup_state WHERE user_id = $1
            """, [.int64(userID)], name: "rollup.lastRollup")
        guard let row = result.first else { return (nil, nil, false) }
        return (try row.epochSeconds(0), try row.localDate(1), try row.bool(2) ?? false)
    }
}
