import Foundation
public import PostgresClient

/// Signed-in web sessions (table `web_sessions`, migrations 0014 and 0016). A row holds
/// SHA-256 of the random session id the browser keeps in its cookie, never the id itself,
/// and the client address of its last recorded use.
public struct WebSessionStore {
    /// One session as the server checks it.
    public struct Record: Sendable, Hashable {
        /// Whose session it is.
        public var userID: Int64
        /// When it last authenticated a request (recorded at most once a minute), epoch seconds.
        public var lastUsedAt: Int64
        /// When it ends at the latest, epoch seconds.
        public var expiresAt: Int64
    }

    /// One session as its owner sees it listed: never its id or the id's hash.
    public struct Listed: Sendable, Hashable {
        /// When it was signed in, epoch seconds.
        public var createdAt: Int64
        /// When it last authenticated a request (recorded at most once a minute), epoch seconds.
        public var lastUsedAt: Int64
        /// When it ends at the latest, epoch seconds.
        public var expiresAt: Int64
        /// The client address of its last recorded use; `nil` when none was recorded.
        public var address: String?
        /// Whether it is the session asking (the one ``list(userID:current:now:idleSince:)`` was given).
        public var isCurrent: Bool
    }

    /// The most bytes of a client address kept (the column's limit).
    public static let maximumAddressBytes = 128

    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// Stores a new session of user `userID` with the hash of its id, created at `now` from
    /// client address `address`, ending at `expiresAt` at the latest, and its owner for the
    /// look-up by hash (`web_session_owners`, migration 0020). Run it inside a transaction.
    public func add(userID: Int64, secretSHA256: [UInt8], at now: Int64, expiresAt: Int64, address: String? = nil)
        throws
    {
        try connection.execute(
            "INSERT INTO web_session_owners (secret_sha256, user_id) VALUES ($1, $2)",
            [.bytes(Data(secretSHA256)), .int64(userID)], name: "webSessions.addOwner")
        try connection.execute(
            """
            INSERT INTO web_sessions (user_id, secret_sha256, created_at, last_used_at, expires_at, last_used_address)
            VALUES ($1, $2, $3, $3, $4, $5)
            """,
            [
                .int64(userID), .bytes(Data(secretSHA256)), .timestamp(epochSeconds: now),
                .timestamp(epochSeconds: expiresAt), Self.bounded(address).map { .text($0) },
            ], name: "webSessions.add")
    }

    /// The valid sessions of user `userID` at `now` (not past their end, used after
    /// `idleSince`), most recently used first; the one whose id hashes to `current` is
    /// marked.
    public func list(userID: Int64, current: [UInt8]?, now: Int64, idleSince: Int64) throws -> [Listed] {
        try connection.execute(
            """
            SELECT created_at, last_used_at, expires_at, last_used_address, coalesce(secret_sha256 = $2, false)
            FROM web_sessions WHERE user_id = $1 AND expires_at > $3 AND last_used_at > $4
            ORDER BY last_used_at DESC, created_at DESC, secret_sha256
            """,
            [
                .int64(userID), current.map { .bytes(Data($0)) }, .timestamp(epochSeconds: now),
                .timestamp(epochSeconds: idleSince),
            ], name: "webSessions.list"
        ).rows.map { row in
            guard let createdAt = try row.epochSeconds(0), let lastUsedAt = try row.epochSeconds(1),
                let expiresAt = try row.epochSeconds(2), let isCurrent = try row.bool(4)
            else {
                throw StoreError(.decodingFailed, "a web_sessions row has a NULL column", statement: "webSessions.list")
            }
            return Listed(
                createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt, address: try row.string(3),
                isCurrent: isCurrent)
        }
    }

    /// `address` when it fits the column; `nil` otherwise.
    static func bounded(_ address: String?) -> String? {
        address.flatMap { $0.utf8.count <= maximumAddressBytes ? $0 : nil }
    }

    /// The session whose id hashes to `secretSHA256`, looked up before its owner is known
    /// (function `sleepledger_web_session`); `nil` when there is none.
    public func session(secretSHA256: [UInt8]) throws -> Record? {
        guard
            let row = try connection.execute(
                "SELECT user_id, last_used_at, expires_at FROM sleepledger_web_session($1)",
                [.bytes(Data(secretSHA256))], name: "webSessions.find"
            ).first
        else { return nil }
        guard let userID = try row.int64(0), let lastUsedAt = try row.epochSeconds(1),
            let expiresAt = try row.epochSeconds(2)
        else {
            throw StoreError(.decodingFailed, "a web_sessions row has a NULL column", statement: "webSessions.find")
        }
        return Record(userID: userID, lastUsedAt: lastUsedAt, expiresAt: expiresAt)
    }

    /// Records that the session authenticated a request at `now` from client address
    /// `address` (at most once a minute, so a page's requests do not rewrite the row each
    /// time; a `nil` address keeps the one recorded).
    public func markUsed(userID: Int64, secretSHA256: [UInt8], at now: Int64, address: String? = nil) throws {
        try connection.execute(
            """
            UPDATE web_sessions SET last_used_at = $3, last_used_address = coalesce($4, last_used_address)
            WHERE user_id = $1 AND secret_sha256 = $2 AND last_used_at < $3::timestamptz - interval '1 minute'
            """,
            [
                .int64(userID), .bytes(Data(secretSHA256)), .timestamp(epochSeconds: now),
                Self.bounded(address).map { .text($0) },
            ], name: "webSessions.markUsed")
    }

    /// Ends one session of user `userID`; `false` when it did not exist.
    @discardableResult
    public func remove(userID: Int64, secretSHA256: [UInt8]) throws -> Bool {
        let removed = try connection.execute(
            "DELETE FROM web_sessions WHERE user_id = $1 AND secret_sha256 = $2",
            [.int64(userID), .bytes(Data(secretSHA256))], name: "webSessions.remove"
        ).affectedRows
        try forgetEndedOwners(userID: userID)
        return removed > 0
    }

    /// Ends every session of user `userID` except the one whose id hashes to `keeping`
    /// (every one when `nil`); returns how many ended.
    @discardableResult
    public func removeAll(userID: Int64, keeping: [UInt8]? = nil) throws -> Int {
        let removed = try connection.execute(
            "DELETE FROM web_sessions WHERE user_id = $1 AND ($2::bytea IS NULL OR secret_sha256 <> $2)",
            [.int64(userID), keeping.map { .bytes(Data($0)) }], name: "webSessions.removeAll"
        ).affectedRows
        try forgetEndedOwners(userID: userID)
        return removed
    }

    /// Removes the sessions of user `userID` that ended by `now` (past their end, or unused
    /// since `idleSince`), and beyond the newest `keepingNewest` valid ones; returns how
    /// many were removed.
    @discardableResult
    public func prune(userID: Int64, now: Int64, idleSince: Int64, keepingNewest: Int) throws -> Int {
        let removed = try connection.execute(
            """
            DELETE FROM web_sessions WHERE user_id = $1 AND (expires_at <= $2 OR last_used_at <= $3
                OR secret_sha256 NOT IN (
                    SELECT secret_sha256 FROM web_sessions WHERE user_id = $1
                    ORDER BY created_at DESC, secret_sha256 LIMIT $4))
            """,
            [
                .int64(userID), .timestamp(epochSeconds: now), .timestamp(epochSeconds: idleSince),
                .int64(Int64(keepingNewest)),
            ], name: "webSessions.prune"
        ).affectedRows
        if removed > 0 { try forgetEndedOwners(userID: userID) }
        return removed
    }

    /// Removes the owner rows (`web_session_owners`) of user `userID`'s sessions that
    /// ended: the user's remaining session hashes are read first and the owners of the
    /// others deleted, two statements that each stay on the user's rows (no statement
    /// mixes the shared table with the user's sessions, which a distributed database
    /// would have to plan across nodes).
    func forgetEndedOwners(userID: Int64) throws {
        let remaining = try connection.execute(
            "SELECT encode(secret_sha256, 'hex') FROM web_sessions WHERE user_id = $1", [.int64(userID)],
            name: "webSessions.remaining"
        ).rows.compactMap { try $0.string(0) }
        try connection.execute(
            "DELETE FROM web_session_owners WHERE user_id = $1 AND encode(secret_sha256, 'hex') <> ALL ($2::text[])",
            [.int64(userID), .text("{" + remaining.joined(separator: ",") + "}")], name: "webSessions.forgetOwners")
    }
}
