/// One API token as the tokens page lists it: never its secret.
public struct TokenRow: Sendable, Hashable {
    /// What a token may do.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Upload and read import status: what a phone automation needs.
        case ingest
        /// Everything the API offers for the account.
        case full
    }

    /// The 16 hex digits in the token (`sl_<id>_...`).
    public var id: String
    /// Its name (a person's value: escaped when shown).
    public var name: String
    /// What it may do.
    public var scope: Scope
    /// When it was made, seconds since 1970.
    public var createdAt: Int64
    /// When it was last used.
    public var lastUsedAt: Int64?
    /// When it was revoked; a revoked token is refused.
    public var revokedAt: Int64?

    /// A token.
    public init(
        id: String, name: String, scope: Scope, createdAt: Int64, lastUsedAt: Int64? = nil, revokedAt: Int64? = nil
    ) {
        self.id = id
        self.name = name
        self.scope = scope
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}
