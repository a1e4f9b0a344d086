import Foundation
public import PostgresClient

/// Signed-in web sessions (table `web_sessions`, migration 0014). A row holds SHA-256 of
/// the random session id the browser keeps in its cookie, never the id itself.
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

    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// Stores a new session of user `userID` with the hash of its id, created at `now`,
    /// ending at `expiresAt` at the latest.
    public func add(userID: Int64, secretSHA256: [UInt8], at now: Int64, expiresAt: Int64) throws {
        try connection.execute(
            """
            INSERT INTO web_sessions (user_id, secret_sha256, created_at, last_used_at, expires_at)
            VALUES ($1, $2, $3, $3, $4)
            """,
            [
                .int64(userID), .bytes(Data(secretSHA256)), .timestamp(epochSeconds: now),
                .timestamp(epochSeconds: expiresAt),
            ], name: "webSessions.add")
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

    /// Records that the session authenticated a request at `now` (at most once a minute,
    /// so a page's requests do not rewrite the row each time).
    public func markUsed(userID: Int64, secretSHA256: [UInt8], at now: Int64) throws {
        try connection.execute(
            """
            UPDATE web_sessions SET last_used_at = $3
            WHERE user_id = $1 AND secret_sha256 = $2 AND last_used_at < $3::timestamptz - interval '1 minute'
            """, [.int64(userID), .bytes(Data(secretSHA256)), .timestamp(epochSeconds: now)],
            name: "webSessions.markUsed")
    }

    /// Ends one session of user `userID`; `false` when it did not exist.
    @discardableResult
    public func remove(userID: Int64, secretSHA256: [UInt8]) throws -> Bool {
        try connection.execute(
            "DELETE FROM web_sessions WHERE user_id = $1 AND secret_sha256 = $2",
            [.int64(userID), .bytes(Data(secretSHA256))], name: "webSessions.remove"
        ).affectedRows > 0
    }

    /// Ends every session of user `userID` except the one whose id hashes to `keeping`
    /// (every one when `nil`); returns how many ended.
    @discardableResult
    public func removeAll(userID: Int64, keeping: [UInt8]? = nil) throws -> Int {
        try connection.execute(
            "DELETE FROM web_sessions WHERE user_id = $1 AND ($2::bytea IS NULL OR secret_sha256 <> $2)",
            [.int64(userID), keeping.map { .bytes(Data($0)) }], name: "webSessions.removeAll"
        ).affectedRows
    }

    /// Removes the sessions of user `userID` that ended by `now` (past their end, or unused
    /// since `idleSince`), and beyond the newest `keepingNewest` valid ones; returns how
    /// many were removed.
    @discardableResult
    public func prune(userID: Int64, now: Int64, idleSince: Int64, keepingNewest: Int) throws -> Int {
        try connection.execute(
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
    }
}
