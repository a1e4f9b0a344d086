public import PostgresClient

/// People's sign-in passwords (table `user_passwords`, migration 0014): one Argon2id hash
/// per user in libargon2's encoded form (parameters and salt recorded beside the hash),
/// written and read by the services; the hashing itself is `LedgerPasswordHash.Argon2id`'s.
public struct PasswordStore {
    /// What signing in needs of a handle: whose it is and the stored hash.
    public struct Credential: Sendable, Hashable {
        /// The user.
        public var userID: Int64
        /// The encoded Argon2id hash.
        public var passwordHash: String
    }

    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// Sets the password hash of user `userID` (replacing any earlier one) at `now`.
    public func set(userID: Int64, passwordHash: String, at now: Int64) throws {
        try connection.execute(
            """
            INSERT INTO user_passwords (user_id, password_hash, set_at) VALUES ($1, $2, $3)
            ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, set_at = excluded.set_at
            """, [.int64(userID), .text(passwordHash), .timestamp(epochSeconds: now)], name: "passwords.set")
    }

    /// The stored hash of user `userID`; `nil` when the user has no password.
    public func passwordHash(userID: Int64) throws -> String? {
        try connection.execute(
            "SELECT password_hash FROM user_passwords WHERE user_id = $1", [.int64(userID)], name: "passwords.hash"
        ).first?.string(0)
    }

    /// The user and stored hash for the handle with key `handleKey` (``UserHandle/key(_:)``),
    /// looked up before the user is known (function `sleepledger_password_credentials`);
    /// `nil` when no such user has a password.
    public func credential(handleKey: String) throws -> Credential? {
        guard
            let row = try connection.execute(
                "SELECT user_id, password_hash FROM sleepledger_password_credentials($1)", [.text(handleKey)],
                name: "passwords.credential"
            ).first
        else { return nil }
        guard let userID = try row.int64(0), let hash = try row.string(1) else {
            throw StoreError(
                .decodingFailed, "a user_passwords row has a NULL column", statement: "passwords.credential")
        }
        return Credential(userID: userID, passwordHash: hash)
    }
}
