public import LedgerStore

/// Who a request speaks for, and the changes to a person's access the server makes: the
/// API token or web session presented, signing in and out, and a person's change of
/// password. Each call borrows one session from its ``SessionSource`` (the server's pool)
/// and runs ``TokenService``, ``WebSessionService`` or ``PasswordService`` on it.
public struct AccessService {
    /// Where every call finds its session.
    public let sessions: any SessionSource
    /// The hashing sign-ins and password changes use (bounded at once).
    public let hashing: PasswordHashing
    /// How long web sessions last.
    public let policy: WebSessionService.Policy

    /// Creates the service over `sessions`.
    public init(sessions: any SessionSource, hashing: PasswordHashing, policy: WebSessionService.Policy) {
        self.sessions = sessions
        self.hashing = hashing
        self.policy = policy
    }

    private func using<T>(_ body: (LedgerSession) throws -> T) throws(ServiceError) -> T {
        try ServiceError.wrapping { try sessions.withSession(body) }
    }

    /// The caller an API token speaks for (``TokenService/authenticate(_:now:)``).
    public func caller(token: String, now: Int64) throws(ServiceError) -> TokenService.Caller {
        try using { try TokenService(session: $0).authenticate(token, now: now) }
    }

    /// The visitor a session cookie's value speaks for, its use from client address
    /// `address` recorded (``WebSessionService/visitor(cookieValue:now:address:)``); `nil`
    /// when it speaks for nobody (malformed, unknown, ended or idle too long).
    public func visitor(cookieValue: String, now: Int64, address: String? = nil) throws(ServiceError)
        -> WebSessionService.Visitor?
    {
        do {
            return try using { session in
                try WebSessionService(session: session, hashing: hashing, policy: policy).visitor(
                    cookieValue: cookieValue, now: now, address: address)
            }
        } catch  where error.kind == .unauthorized {
            return nil
        }
    }

    /// Signs a person in from client address `address`
    /// (``WebSessionService/signIn(handle:password:now:address:)``).
    public func signIn(handle: String, password: String, now: Int64, address: String? = nil) throws(ServiceError)
        -> WebSessionService.SignedIn
    {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).signIn(
                handle: handle, password: password, now: now, address: address)
        }
    }

    /// The valid web sessions of user `userID` at `now`, `current`'s marked
    /// (``WebSessionService/list(userID:current:now:)``).
    public func sessions(userID: Int64, current: WebSessionService.Visitor?, now: Int64) throws(ServiceError)
        -> [WebSessionStore.Listed]
    {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).list(
                userID: userID, current: current, now: now)
        }
    }

    /// Ends every web session of user `userID` but `keeping` (every one when `nil`): "sign
    /// out everywhere else". Returns how many ended.
    public func endOtherSessions(userID: Int64, keeping: WebSessionService.Visitor?) throws(ServiceError) -> Int {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).endOthers(
                userID: userID, keeping: keeping)
        }
    }

    /// Ends `visitor`'s session.
    public func signOut(_ visitor: WebSessionService.Visitor) throws(ServiceError) {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).signOut(visitor)
        }
    }

    /// A person's change of their own password, ending their other sessions and, when
    /// `revokingTokens`, revoking their API tokens
    /// (``PasswordService/change(userID:current:new:keeping:revokingTokens:now:)``).
    public func changePassword(
        userID: Int64, current: String, new: String, keeping visitor: WebSessionService.Visitor,
        revokingTokens: Bool = false, now: Int64
    ) throws(ServiceError) {
        try using { session in
            try PasswordService(session: session, hashing: hashing).change(
                userID: userID, current: current, new: new, keeping: visitor, revokingTokens: revokingTokens, now: now)
        }
    }
}
