/// One web session as the settings page lists it: never its id.
public struct SessionRow: Sendable, Hashable {
    /// When it was signed in, seconds since 1970.
    public var createdAt: Int64
    /// When it was last used (recorded at most once a minute).
    public var lastUsedAt: Int64
    /// The client address of its last recorded use (escaped when shown); `nil` when none
    /// was recorded.
    public var address: String?
    /// Whether it is the session showing the page.
    public var isCurrent: Bool

    /// A session.
    public init(createdAt: Int64, lastUsedAt: Int64, address: String? = nil, isCurrent: Bool = false) {
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.address = address
        self.isCurrent = isCurrent
    }
}
