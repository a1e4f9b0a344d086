public import LedgerServices
public import LedgerStore

/// Who a request speaks for, as the authentication middleware found it: a person, with
/// what they may do, and how they proved it (an API token, or a web session cookie).
public struct Caller: Sendable, Hashable {
    /// The person.
    public var userID: Int64
    /// What they may do: a session speaks with the `full` scope.
    public var scope: TokenStore.Scope
    /// The web session when the caller came with the session cookie; `nil` for a token.
    public var visitor: WebSessionService.Visitor?

    /// The caller an API token speaks for.
    public init(_ token: TokenService.Caller) {
        userID = token.userID
        scope = token.scope
        visitor = nil
    }

    /// The caller a web session speaks for.
    public init(_ visitor: WebSessionService.Visitor) {
        userID = visitor.userID
        scope = .full
        self.visitor = visitor
    }
}
