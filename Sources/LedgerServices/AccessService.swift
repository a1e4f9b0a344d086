import LedgerStore

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

    /// The visitor a session cookie's value speaks for; `nil` when it speaks for nobody
    /// (malformed, unknown, ended or idle too long).
    public func visitor(cookieValue: String, now: Int64) throws(ServiceError) -> WebSessionService.Visitor? {
        do {
            return try using { session in
                try WebSessionService(session: session, hashing: hashing, policy: policy).visitor(
                    cookieValue: cookieValue, now: now)
            }
        } catch  where error.kind == .unauthorized {
            return nil
        }
    }

    /// Signs a person in (``WebSessionService/signIn(handle:password:now:)``).
    public func signIn(handle: String, password: String, now: Int64) throws(ServiceError)
        -> WebSessionService.SignedIn
    {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).signIn(
                handle: handle, password: password, now: now)
        }
    }

    /// Ends `visitor`'s session.
    public func signOut(_ visitor: WebSessionService.Visitor) throws(ServiceError) {
        try using { session in
            try WebSessionService(session: session, hashing: hashing, policy: policy).signOut(visitor)
        }
    }

    /// A person's change of their own password, ending their other sessions
    /// (``PasswordService/change(userID:current:new:keeping:now:)``).
    public func changePassword(
        userID: Int64, current: String, new: String, keeping visitor: WebSessionService.Visitor, now: Int64
    ) throws(ServiceError) {
        try using { session in
            try PasswordService(session: session, hashing: hashing).change(
                userID: userID, current: current, new: new, keeping: visitor, now: now)
        }
    }
}
