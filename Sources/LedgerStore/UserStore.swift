public import PostgresClient
public import SleepCore

/// Adds, lists, changes and removes users. Validating handles, zones and durations is the
/// caller's job; the database still rejects a target below the minimum
/// (`constraintViolated`, constraint `users_goals_check`).
///
/// Handles are stored in NFC and found by their key (``UserHandle``): any letter case, any
/// canonically equivalent spelling, whatever the database's locale.
public struct UserStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    private static let columns =
        "id, handle, time_zone, target_seconds, minimum_seconds, created_at, work_days, target_mode"

    /// Adds a user (and its rollup state and import lock rows) and returns it; the handle
    /// is stored in NFC. Throws the client's `alreadyExists` (constraint
    /// `users_handle_key`) when a handle with the same key is taken.
    @discardableResult
    public func add(handle: String, timeZone: String, goals: SleepGoals = SleepGoals()) throws -> User {
        let display = try UserHandle.displayForm(handle)
        let key = try UserHandle.key(handle)
        return try connection.transaction { connection in
            let row = try connection.execute(
                """
                INSERT INTO users (handle, handle_key, time_zone, target_seconds, minimum_seconds, work_days, target_mode)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \(UserStore.columns)
                """,
                [
                    .text(display), .text(key), .text(timeZone), .int64(goals.targetSeconds),
                    .int64(goals.minimumSeconds), .int(goals.workDays.mask), .text(goals.target.rawValue),
                ],
                name: "users.add"
            ).single("users.add")
            let user = try UserStore.user(from: row)
            try connection.execute(
                "INSERT INTO rollup_state (user_id) VALUES ($1)", [.int64(user.id)], name: "users.addRollupState")
            try connection.execute(
                "INSERT INTO import_locks (user_id) VALUES ($1)", [.int64(user.id)], name: "users.addImportLock")
            return user
        }
    }

    /// Every user, by handle key (letter case and accents spelled any way sort together).
    public func list() throws -> [User] {
        try connection.execute(
            "SELECT \(UserStore.columns) FROM users ORDER BY handle_key, id", name: "users.list"
        ).rows.map(UserStore.user(from:))
    }

    /// The user whose handle has the key of `handle` (any letter case, any canonically
    /// equivalent spelling), or `nil`.
    public func find(handle: String) throws -> User? {
        try connection.execute(
            "SELECT \(UserStore.columns) FROM users WHERE handle_key = $1", [.text(UserHandle.key(handle))],
            name: "users.find"
        ).first.map(UserStore.user(from:))
    }

    /// The user with id `id`, or `nil`. A prepared statement: the server reads the
    /// caller's row on every request.
    public func find(id: Int64) throws -> User? {
        let statement = Self.findStatement(id: id)
        return try Self.user(in: connection.executePrepared(statement.sql, statement.parameters, name: statement.name))
    }

    /// ``find(id:)``'s statement, for a caller that sends it with others in one round trip
    /// (``PostgresClient/Connection/pipelinedTransaction(_:readOnly:)``); read its result
    /// with ``user(in:)``.
    public static func findStatement(id: Int64) -> PipelinedStatement {
        PipelinedStatement("SELECT \(columns) FROM users WHERE id = $1", [.int64(id)], name: "users.findByID")
    }

    /// ``findStatement(id:)`` for the user the transaction's setting names
    /// (``DatabaseRoles/currentUserID``): no row when it names no one.
    public static let findCurrentStatement = PipelinedStatement(
        "SELECT \(columns) FROM users WHERE id = \(DatabaseRoles.currentUserID)", [], name: "users.findCurrent")

    /// The user in the result of ``findStatement(id:)``, or `nil`.
    public static func user(in result: QueryResult) throws -> User? {
        try result.first.map(user(from:))
    }

    /// Changes a user's handle, zone and/or goals (`nil` keeps the current value) and
    /// returns the result. A new handle is stored in NFC with its key; it may differ from
    /// the old one in letter case only. A changed zone, target or minimum marks the
    /// user's summaries stale (`rollup_state.summaries_stale`); a new handle does not.
    /// Throws `notFound` for an unknown handle, and the client's `alreadyExists`
    /// (constraint `users_handle_key`) when the new handle is another user's.
    ///
    /// The row is locked `FOR NO KEY UPDATE`, the lock the `UPDATE` itself takes: it does
    /// not conflict with the `KEY SHARE` locks that the foreign-key checks of a running
    /// import or rollup hold on the user's row, so a change does not wait for them.
    @discardableResult
    public func update(handle: String, newHandle: String? = nil, timeZone: String? = nil, goals: SleepGoals? = nil)
        throws -> User
    {
        let key = try UserHandle.key(handle)
        let renamed = try newHandle.map { (display: try UserHandle.displayForm($0), key: try UserHandle.key($0)) }
        return try connection.transaction { connection in
            guard
                let current = try connection.execute(
                    "SELECT \(UserStore.columns) FROM users WHERE handle_key = $1 FOR NO KEY UPDATE",
                    [.text(key)], name: "users.lockForUpdate"
                ).first.map(UserStore.user(from:))
            else { throw UserStore.unknownUser }
            let zone = timeZone ?? current.timeZoneIdentifier
            let newGoals = goals ?? current.goals
            let display = renamed?.display ?? current.handle
            let changesSettings = zone != current.timeZoneIdentifier || newGoals != current.goals
            guard changesSettings || display != current.handle else { return current }
            let row = try connection.execute(
                """
                UPDATE users SET time_zone = $2, target_seconds = $3, minimum_seconds = $4,
                    handle = coalesce($5, handle), handle_key = coalesce($6, handle_key), work_days = $7,
                    target_mode = $8
                WHERE id = $1 RETURNING \(UserStore.columns)
                """,
                [
                    .int64(current.id), .text(zone), .int64(newGoals.targetSeconds), .int64(newGoals.minimumSeconds),
                    renamed.map { .text($0.display) }, renamed.map { .text($0.key) }, .int(newGoals.workDays.mask),
                    .text(newGoals.target.rawValue),
                ],
                name: "users.update"
            ).single("users.update")
            if changesSettings {
                try connection.execute(
                    """
                    INSERT INTO rollup_state (user_id, summaries_stale, updated_at) VALUES ($1, true, now())
                    ON CONFLICT (user_id) DO UPDATE SET summaries_stale = true, updated_at = now()
                    """, [.int64(current.id)], name: "users.markSummariesStale")
            }
            return try UserStore.user(from: row)
        }
    }

    /// Removes a user and, by cascade, all of its data. Throws `notFound` for an unknown handle.
    ///
    /// Takes the user's import lock first (``ImportLock``): when an import of the user is
    /// running, `onWait` is called with what holds the lock (`nil` when that cannot be
    /// told) and the removal waits for it to end: at most `waitSeconds` (then
    /// ``StoreError/Kind/busy``), or when `nil` without a limit of its own (the session's
    /// `lock_timeout`, if the server sets one, still applies and then throws
    /// ``StoreError/Kind/busy``). No import of the user can start meanwhile.
    ///
    /// Returns the user's import jobs as they were when removed (every state): whoever
    /// holds their spool folder removes their files (``ImportJobStore/Job/spoolPath``).
    @discardableResult
    public func remove(
        handle: String, waitSeconds: Double? = nil, onWait: (ImportLockHolder?) -> Void = { _ in },
        beforeCommit: (Tombstone) throws -> Void = { _ in }
    ) throws -> [ImportJobStore.Job] {
        try connection.transaction { connection in
            guard
                let userID = try connection.execute(
                    "SELECT id FROM users WHERE handle_key = $1", [.text(UserHandle.key(handle))],
                    name: "users.findForRemoval"
                ).first?.int64(0)
            else { throw UserStore.unknownUser }
            return try UserStore(connection: connection).removeLocking(
                userID: userID, waitSeconds: waitSeconds, onWait: onWait, beforeCommit: beforeCommit)
        }
    }

    /// Removes the user with id `id` as ``remove(handle:waitSeconds:onWait:beforeCommit:)``
    /// does (for a caller that knows the id: the server, whose row-level security shows it
    /// that one user). Throws `notFound` when there is no such user.
    @discardableResult
    public func remove(
        id: Int64, waitSeconds: Double? = nil, onWait: (ImportLockHolder?) -> Void = { _ in },
        beforeCommit: (Tombstone) throws -> Void = { _ in }
    ) throws -> [ImportJobStore.Job] {
        try connection.transaction { connection in
            try UserStore(connection: connection).removeLocking(
                userID: id, waitSeconds: waitSeconds, onWait: onWait, beforeCommit: beforeCommit)
        }
    }

    /// The removal inside the caller's transaction: the import lock, then the jobs (read
    /// back as they are deleted), then the user with everything else by cascade; then
    /// `beforeCommit` with the account's tombstone (which records it where a restore cannot
    /// take it back; when it throws, nothing is removed).
    private func removeLocking(
        userID: Int64, waitSeconds: Double?, onWait: (ImportLockHolder?) -> Void,
        beforeCommit: (Tombstone) throws -> Void
    ) throws -> [ImportJobStore.Job] {
        let lock = ImportLock(connection: connection)
        guard try lock.acquire(userID: userID, waitSeconds: waitSeconds, onWait: onWait) else {
            throw UserStore.unknownUser
        }
        try lock.announce(.removingUser, userID: userID)
        // After the lock: a running import ends its job in its own transaction, which
        // would otherwise wait for this one's row locks while this one waits for its lock.
        let jobs = try ImportJobStore(connection: connection).removeAll(userID: userID)
        guard
            let row = try connection.execute(
                """
                DELETE FROM users WHERE id = $1
                RETURNING (extract(epoch FROM created_at) * 1000000)::bigint,
                    (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
                """, [.int64(userID)], name: "users.remove"
            ).first, let created = try row.int64(0), let deleted = try row.int64(1)
        else { throw UserStore.unknownUser }
        try beforeCommit(
            Tombstone(userID: userID, createdAtMicroseconds: created, deletedAtMicroseconds: deleted))
        return jobs
    }

    /// An account removed again because its tombstone says it was deleted.
    public struct ReappliedDeletion: Sendable, Hashable {
        /// The account's id.
        public var userID: Int64
        /// When it had been deleted, in microseconds since 1970.
        public var deletedAtMicroseconds: Int64
    }

    /// Removes, with everything of theirs, every account a tombstone names (same id and
    /// same `created_at`): accounts a restore brought back. Returns them; an account
    /// created after a restore under a reused id has another `created_at` and stays.
    public func removeTombstoned(_ tombstones: [Tombstone]) throws -> [ReappliedDeletion] {
        guard !tombstones.isEmpty else { return [] }
        func array(_ values: [Int64]) -> SQLValue { .text("{" + values.map(String.init).joined(separator: ",") + "}") }
        let result = try connection.execute(
            """
            DELETE FROM users u
            USING unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS t(id, created, deleted)
            WHERE u.id = t.id AND (extract(epoch FROM u.created_at) * 1000000)::bigint = t.created
            RETURNING u.id, t.deleted
            """,
            [
                array(tombstones.map(\.userID)), array(tombstones.map(\.createdAtMicroseconds)),
                array(tombstones.map(\.deletedAtMicroseconds)),
            ], name: "users.removeTombstoned")
        return try result.rows.map { row in
            guard let id = try row.int64(0), let deleted = try row.int64(1) else {
                throw StoreError(.decodingFailed, "a removed users row has a NULL column", statement: "users")
            }
            return ReappliedDeletion(userID: id, deletedAtMicroseconds: deleted)
        }
    }

    private static let unknownUser = StoreError(.notFound, "no user with that handle", statement: "users")

    static func user(from row: Row) throws -> User {
        guard let id = try row.int64("id"), let handle = try row.string("handle"),
            let zone = try row.string("time_zone"), let target = try row.int64("target_seconds"),
            let minimum = try row.int64("minimum_seconds"), let createdAt = try row.epochSeconds("created_at"),
            let workDays = try row.int64("work_days"), let targetName = try row.string("target_mode"),
            let targetMode = SleepTarget(rawValue: targetName)
        else { throw StoreError(.decodingFailed, "a users row has a NULL column", statement: "users") }
        return User(
            id: id, handle: handle, timeZoneIdentifier: zone,
            goals: SleepGoals(
                targetSeconds: target, minimumSeconds: minimum, workDays: WorkDays(mask: Int(workDays)),
                target: targetMode),
            createdAt: createdAt)
    }
}
