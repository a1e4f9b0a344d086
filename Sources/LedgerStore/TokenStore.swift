import Foundation
public import PostgresClient

/// Personal API tokens (table `api_tokens`, migration 0009): their records, and the
/// credential look-up by token id that the server makes before it knows whose a token is.
/// The secret itself is never stored, only its SHA-256.
public struct TokenStore {
    /// What a token may do.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Upload and read import status: what a phone automation needs.
        case ingest
        /// Everything the API offers: data, settings, tokens.
        case full
    }

    /// One token as `token list` shows it: never the secret.
    public struct Record: Sendable, Hashable {
        /// The id printed in the token (`sl_<id in hex>_...`).
        public var id: Int64
        /// The owner.
        public var userID: Int64
        /// What the person called it.
        public var name: String
        /// What it may do.
        public var scope: Scope
        /// When it was created, epoch seconds.
        public var createdAt: Int64
        /// When it last authenticated a request, epoch seconds.
        public var lastUsedAt: Int64?
        /// When it was revoked, epoch seconds; `nil` while valid.
        public var revokedAt: Int64?
    }

    /// What the server needs to check a presented token.
    public struct Credential: Sendable, Hashable {
        /// The owner.
        public var userID: Int64
        /// What it may do.
        public var scope: Scope
        /// SHA-256 of the secret.
        public var secretSHA256: [UInt8]
        /// When it last authenticated a request, epoch seconds; `nil` when never.
        public var lastUsedAt: Int64?

        /// Whether a use at `now` is to be recorded (``markUsed(userID:id:at:)``): the
        /// token was never used, or not in the minute before.
        public func isUseDue(at now: Int64) -> Bool {
            guard let lastUsedAt else { return true }
            return lastUsedAt < now - TokenStore.useRecordingSeconds
        }
    }

    /// A token's use is recorded at most once in this many seconds.
    public static let useRecordingSeconds: Int64 = 60

    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    private static let columns =
        "id, user_id, name, scope, created_at, last_used_at, revoked_at"

    /// Stores a new token's record and hash, and its owner for the look-up by id
    /// (`api_token_owners`, migration 0020). Run it inside a transaction.
    @discardableResult
    public func add(userID: Int64, id: Int64, name: String, scope: Scope, secretSHA256: [UInt8]) throws -> Record {
        try connection.execute(
            "INSERT INTO api_token_owners (token_id, user_id) VALUES ($1, $2)", [.int64(id), .int64(userID)],
            name: "tokens.addOwner")
        return try Self.record(
            from: connection.execute(
                """
                INSERT INTO api_tokens (user_id, id, name, scope, secret_sha256) VALUES ($1, $2, $3, $4, $5)
                RETURNING \(Self.columns)
                """,
                [.int64(userID), .int64(id), .text(name), .text(scope.rawValue), .bytes(Data(secretSHA256))],
                name: "tokens.add"
            ).single("tokens.add"))
    }

    /// The user's tokens, newest first, revoked ones included.
    public func list(userID: Int64) throws -> [Record] {
        try connection.execute(
            "SELECT \(Self.columns) FROM api_tokens WHERE user_id = $1 ORDER BY created_at DESC, id",
            [.int64(userID)], name: "tokens.list"
        ).rows.map(Self.record(from:))
    }

    /// Revokes the user's token `id`; `false` when the user has no such valid token.
    @discardableResult
    public func revoke(userID: Int64, id: Int64, at now: Int64) throws -> Bool {
        try connection.execute(
            "UPDATE api_tokens SET revoked_at = $3 WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL",
            [.int64(userID), .int64(id), .timestamp(epochSeconds: now)], name: "tokens.revoke"
        ).affectedRows > 0
    }

    /// Revokes every valid token of the user at `now`; returns how many were revoked.
    @discardableResult
    public func revokeAll(userID: Int64, at now: Int64) throws -> Int {
        try connection.execute(
            "UPDATE api_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL",
            [.int64(userID), .timestamp(epochSeconds: now)], name: "tokens.revokeAll"
        ).affectedRows
    }

    /// The valid tokens with id `id` (ids are random: normally one, at most a few), looked
    /// up before the owner is known (function `sleepledger_token_credentials`, migration
    /// 0013). A prepared statement: the server runs it on every request.
    public func credentials(id: Int64) throws -> [Credential] {
        let statement = Self.credentialsStatement(id: id)
        return try Self.credentials(
            in: try connection.executePrepared(statement.sql, statement.parameters, name: statement.name))
    }

    /// ``credentials(id:)`` as a statement for a pipelined transaction.
    public static func credentialsStatement(id: Int64) -> PipelinedStatement {
        PipelinedStatement(
            "SELECT user_id, scope, secret_sha256, last_used_at FROM sleepledger_token_credentials($1)", [.int64(id)],
            name: "tokens.credentials")
    }

    /// The credentials of token `id` of user `userID` whose stored hash is `secretSHA256`,
    /// read as that user under row-level security in a transaction already bound to them
    /// (function `sleepledger_own_token`, migration 0020), or SQLSTATE 28000
    /// (``isNoOwnToken(_:)``) when that user has no such valid token, which ends the
    /// transaction before anything after it runs. It lets a server that already knows a
    /// token's owner check the token in the same round trip as the reads that follow, on
    /// the owner's rows only.
    public static func ownCredentialsStatement(userID: Int64, id: Int64, secretSHA256: [UInt8]) -> PipelinedStatement {
        PipelinedStatement(
            "SELECT user_id, scope, secret_sha256, last_used_at FROM sleepledger_own_token($1, $2, $3)",
            [.int64(userID), .int64(id), .bytes(Data(secretSHA256))], name: "tokens.ownCredentials")
    }

    /// Whether `error` is ``ownCredentialsStatement(userID:id:secretSHA256:)`` finding no
    /// such token.
    public static func isNoOwnToken(_ error: PostgresError) -> Bool { error.sqlState == "28000" }

    /// The credentials in the result of ``credentialsStatement(id:)`` or
    /// ``ownCredentialsStatement(userID:id:secretSHA256:)``.
    public static func credentials(in result: QueryResult) throws -> [Credential] {
        try result.rows.map { row in
            guard let userID = try row.int64(0), let scope = try row.string(1).flatMap(Scope.init(rawValue:)),
                let hash = try row.bytes(2)
            else {
                throw StoreError(
                    .decodingFailed, "an api_tokens row has a NULL column", statement: "tokens.credentials")
            }
            return Credential(
                userID: userID, scope: scope, secretSHA256: Array(hash), lastUsedAt: try row.epochSeconds(3))
        }
    }

    /// Records that the token authenticated a request at `now` (at most once a minute,
    /// so a busy phone does not rewrite the row on every request; callers skip the call
    /// when ``Credential/isUseDue(at:)`` says no).
    public func markUsed(userID: Int64, id: Int64, at now: Int64) throws {
        try connection.executePrepared(
            """
            UPDATE api_tokens SET last_used_at = $3
            WHERE user_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < $3::timestamptz - interval '1 minute')
            """, [.int64(userID), .int64(id), .timestamp(epochSeconds: now)], name: "tokens.markUsed")
    }

    static func record(from row: Row) throws -> Record {
        guard let id = try row.int64("id"), let userID = try row.int64("user_id"), let name = try row.string("name"),
            let scope = try row.string("scope").flatMap(Scope.init(rawValue:)),
            let createdAt = try row.epochSeconds("created_at")
        else { throw StoreError(.decodingFailed, "an api_tokens row has a NULL column", statement: "tokens") }
        return Record(
            id: id, userID: userID, name: name, scope: scope, createdAt: createdAt,
            lastUsedAt: try row.epochSeconds("last_used_at"), revokedAt: try row.epochSeconds("revoked_at"))
    }
}
