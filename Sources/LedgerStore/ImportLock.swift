public import PostgresClient

/// The per-user import lock: the user's row in `import_locks` (migration 0008), locked
/// `FOR UPDATE` for the rest of a transaction.
///
/// Imports of one user run one after the other (``SampleLoader`` takes the lock before
/// anything else; its merge relies on no other transaction adding the user's samples
/// meanwhile), and removing a user (``UserStore/remove(handle:waitSeconds:onWait:)``) waits for a
/// running import. Nothing else locks these rows, so an import neither waits for nor holds
/// up the rollup's claims, `user set` or other users' imports. A row lock needs the
/// `UPDATE` privilege, which the read-only role does not have, so it cannot take (and
/// hold) the lock the way any role could take an advisory lock.
///
/// Waiting is bounded where the caller asks: ``acquire(userID:waitSeconds:onWait:)`` first
/// tries without waiting; when another transaction holds the lock it tells the caller who
/// (``holder(userID:)``) and then waits at most the given time (`lock_timeout`, local to
/// the wait), failing with ``StoreError/Kind/busy``.
///
/// Who holds the lock: the holder's own rows are invisible to others until it commits, so
/// a holder names itself in `pg_stat_activity.application_name` for the rest of its
/// transaction (``announce(_:userID:)``, `set_config(..., true)`): `sleepledger import 42
/// of user 7: export.zip` or `sleepledger user remove of user 7`. Only a holder sets it,
/// and only after it has the lock, so a waiting session is never taken for the holder.
public struct ImportLock {
    /// The connection every call uses; ``acquire(userID:waitSeconds:onWait:)`` and
    /// ``announce(_:userID:)`` need it inside a transaction.
    public let connection: Connection

    /// Creates the lock's repository over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// What the holder of a user's lock does, as it announces itself.
    public typealias Activity = ImportLockHolder.Activity

    /// The longest `application_name` the server keeps (`NAMEDATALEN - 1`).
    static let maximumApplicationNameBytes = 63

    private enum Attempt {
        case locked
        case held
        case missing
    }

    /// Takes the user's import lock for the rest of the current transaction.
    ///
    /// Tries at once first; when another transaction holds the lock, calls `onWait` with
    /// what holds it (`nil` when that cannot be told) and waits: at most `waitSeconds`, or
    /// when `nil` as long as the session's `lock_timeout` allows (by default without
    /// limit). A user without a lock row (added before migration 0008 by hand) gets one.
    ///
    /// - Returns: `false` when the user does not exist (any more: a removal that committed
    ///   while this one waited).
    /// - Throws: ``StoreError/Kind/busy`` (SQLSTATE 55P03) when the wait ran out; the
    ///   transaction is then aborted and must be rolled back.
    public func acquire(userID: Int64, waitSeconds: Double?, onWait: (ImportLockHolder?) -> Void) throws -> Bool {
        let attempt = try lockAtOnce(userID: userID)
        switch attempt {
        case .locked: return true
        case .held: onWait(try? connection.transaction { _ in try holder(userID: userID) })
        case .missing: break
        }
        // From here on every wait is bounded by `waitSeconds`: the lock's, and the rare
        // insert of a missing row (which waits for another transaction inserting it).
        let previous = try connection.execute(
            "SELECT current_setting('lock_timeout')", name: "importLock.readTimeout"
        ).single("importLock.readTimeout").string(0)
        if let waitSeconds {
            try setLockTimeout("\(max(1, Int64((waitSeconds * 1000).rounded(.up))))ms")
        }
        let isLocked: Bool
        do {
            if case .missing = attempt {
                try connection.execute(
                    """
                    INSERT INTO import_locks (user_id) SELECT id FROM users WHERE id = $1
                    ON CONFLICT (user_id) DO NOTHING
                    """, [.int64(userID)], name: "importLock.addMissingRow")
            }
            isLocked = try !connection.execute(Self.lockSQL, [.int64(userID)], name: "importLock.wait").rows.isEmpty
        } catch let error as PostgresError where error.sqlState == Self.lockNotAvailable {
            throw StoreError(
                .busy, "another transaction held the user's import lock for the whole wait",
                sqlState: error.sqlState, detail: waitSeconds.map { "waited \($0) s" }, statement: "importLock.wait")
        }
        if waitSeconds != nil, let previous { try setLockTimeout(previous) }
        return isLocked
    }

    /// Names this transaction as the holder of the user's lock in
    /// `pg_stat_activity.application_name` until it ends (call after
    /// ``acquire(userID:waitSeconds:onWait:)``).
    public func announce(_ activity: Activity, userID: Int64) throws {
        try connection.execute(
            "SELECT set_config('application_name', $1, true)",
            [.text(Self.applicationName(activity, userID: userID))], name: "importLock.announce")
    }

    /// The session holding the user's lock now, as far as `pg_stat_activity` tells: `nil`
    /// when no session announced itself as holding it (none holds it, or one that does
    /// not announce itself, such as a person in `psql`).
    public func holder(userID: Int64) throws -> ImportLockHolder? {
        guard
            let row = try connection.execute(
                """
                SELECT application_name, extract(epoch FROM date_trunc('second', xact_start))::bigint AS since, pid
                FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                  AND (application_name LIKE $1 OR application_name = $2)
                ORDER BY xact_start NULLS LAST
                LIMIT 1
                """,
                [
                    .text("sleepledger import % of user \(userID):%"),
                    .text(Self.applicationName(.removingUser, userID: userID)),
                ],
                name: "importLock.holder"
            ).first,
            let name = try row.string(0), let serverProcessID = try row.int(2),
            let activity = Self.activity(fromApplicationName: name)
        else { return nil }
        return ImportLockHolder(activity: activity, since: try row.int64(1), serverProcessID: Int32(serverProcessID))
    }

    // MARK: Statements and names

    static let lockSQL = "SELECT user_id FROM import_locks WHERE user_id = $1 FOR UPDATE"
    static let lockNotAvailable = "55P03"

    /// One try without waiting, in a savepoint so that a held lock leaves the transaction usable.
    private func lockAtOnce(userID: Int64) throws -> Attempt {
        do {
            let rows = try connection.transaction { connection in
                try connection.execute(Self.lockSQL + " NOWAIT", [.int64(userID)], name: "importLock.try").rows
            }
            return rows.isEmpty ? .missing : .locked
        } catch let error as PostgresError where error.sqlState == Self.lockNotAvailable {
            return .held
        }
    }

    private func setLockTimeout(_ value: String) throws {
        try connection.execute(
            "SELECT set_config('lock_timeout', $1, true)", [.text(value)], name: "importLock.setTimeout")
    }

    /// `sleepledger import 42 of user 7: export.zip` (the file name's last component,
    /// printable ASCII, cut so the whole fits in 63 bytes) or `sleepledger user remove of
    /// user 7`.
    static func applicationName(_ activity: Activity, userID: Int64) -> String {
        switch activity {
        case .removingUser:
            return "sleepledger user remove of user \(userID)"
        case .importing(let importID, let fileName):
            let head = "sleepledger import \(importID) of user \(userID): "
            let last = fileName.split(separator: "/").last.map(String.init) ?? fileName
            var name = String(last.unicodeScalars.map { (32...126).contains($0.value) ? Character($0) : "?" })
            if name.isEmpty { name = "?" }
            let room = max(1, maximumApplicationNameBytes - head.utf8.count)
            if name.utf8.count > room { name = String(name.prefix(max(1, room - 3))) + "..." }
            return head + name
        }
    }

    /// The activity an ``applicationName(_:userID:)`` names; `nil` for any other text.
    static func activity(fromApplicationName name: String) -> Activity? {
        if name.hasPrefix("sleepledger user remove of user ") { return .removingUser }
        let prefix = "sleepledger import "
        guard name.hasPrefix(prefix), let separator = name.range(of: " of user ") else { return nil }
        guard let importID = Int64(name[name.index(name.startIndex, offsetBy: prefix.count)..<separator.lowerBound]),
            let colon = name[separator.upperBound...].range(of: ": ")
        else { return nil }
        return .importing(importID: importID, fileName: String(name[colon.upperBound...]))
    }
}
