import Foundation
import LedgerCrypto
public import LedgerStore

/// Signed-in web sessions: sign in with handle and password, the visitor a session
/// cookie speaks for, sign out.
///
/// A session's id is a ``CookieSecret`` (32 random bytes) that only the browser keeps, in
/// the `sleepledger_session` cookie; the database holds its SHA-256, found before the user
/// is known through `sleepledger_web_session`. A session ends at the earlier of
/// ``Policy/lifetimeSeconds`` after sign-in and ``Policy/idleSeconds`` without use, at
/// sign-out, when the password changes (its other sessions), when the operator sets the
/// password (all of them), and with the account. Its CSRF token is derived from its id
/// (``CookieSecret/Purpose/session``), so nothing more is stored.
public struct WebSessionService {
    /// How long sessions last, and how many one person keeps.
    public struct Policy: Sendable, Hashable {
        /// Seconds from sign-in to the session's end, however much it is used. Default 30 days.
        public var lifetimeSeconds: Int64
        /// Seconds without a request after which it ends. Default 7 days.
        public var idleSeconds: Int64
        /// Sessions one person keeps; signing in beyond it ends the oldest. Default 20.
        public var maximumPerUser: Int

        /// The defaults.
        public init(lifetimeSeconds: Int64 = 30 * 86_400, idleSeconds: Int64 = 7 * 86_400, maximumPerUser: Int = 20) {
            self.lifetimeSeconds = lifetimeSeconds
            self.idleSeconds = idleSeconds
            self.maximumPerUser = maximumPerUser
        }
    }

    /// A session just made: the cookie's value exists only here and in the browser.
    public struct SignedIn: Sendable, Hashable {
        /// The value of the session cookie.
        public var cookieValue: String
        /// The person.
        public var userID: Int64
        /// When the session ends at the latest, epoch seconds.
        public var expiresAt: Int64
    }

    /// Who a valid session cookie speaks for.
    public struct Visitor: Sendable, Hashable {
        /// The person.
        public var userID: Int64
        /// When the session ends at the latest, epoch seconds.
        public var expiresAt: Int64
        /// The session's CSRF token, for the pages' forms and `X-CSRF-Token`.
        public var csrfToken: String
        /// SHA-256 of the session id.
        var secretSHA256: [UInt8]

        /// The API caller a session speaks as: the person, with the `full` scope (token
        /// id 0: no token).
        public var caller: TokenService.Caller { TokenService.Caller(userID: userID, tokenID: 0, scope: .full) }
    }

    /// The session every call uses.
    public let session: LedgerSession
    /// The hashing sign-ins use.
    public let hashing: PasswordHashing
    /// How long sessions last.
    public let policy: Policy

    /// Creates the service over `session`.
    public init(session: LedgerSession, hashing: PasswordHashing, policy: Policy = Policy()) {
        self.session = session
        self.hashing = hashing
        self.policy = policy
    }

    static let refused = ServiceError(.unauthorized, "the handle or the password is wrong")
    static let signedOut = ServiceError(.unauthorized, "the session has ended; sign in again")

    /// Signs in the person whose handle and password these are, at `now`, from client
    /// address `address`: a new session, after removing their ended ones and beyond
    /// ``Policy/maximumPerUser``. ``ServiceError/Kind/unauthorized`` for an unknown handle,
    /// a person without a password or a wrong password alike.
    public func signIn(handle: String, password: String, now: Int64, address: String? = nil) throws(ServiceError)
        -> SignedIn
    {
        guard
            let userID = try PasswordService(session: session, hashing: hashing).check(
                handle: handle, password: password)
        else { throw Self.refused }
        let secret = try CookieSecret.generate()
        guard let bytes = CookieSecret.bytes(of: secret) else {
            throw ServiceError(.internalFailure, "a new session id did not read back")
        }
        let expiresAt = now + policy.lifetimeSeconds
        try ServiceError.wrapping {
            try session.asUser(userID) {
                let store = WebSessionStore(connection: session.connection)
                try store.prune(
                    userID: userID, now: now, idleSince: now - policy.idleSeconds,
                    keepingNewest: max(0, policy.maximumPerUser - 1))
                try store.add(
                    userID: userID, secretSHA256: CookieSecret.sha256(bytes), at: now, expiresAt: expiresAt,
                    address: address)
            }
        }
        return SignedIn(cookieValue: secret, userID: userID, expiresAt: expiresAt)
    }

    /// The visitor the session cookie value `cookieValue` speaks for at `now`, recording
    /// the use and the client address `address` (at most once a minute);
    /// ``ServiceError/Kind/unauthorized`` for a value that is malformed, unknown, past its
    /// end or idle too long.
    ///
    /// Unlike a token, a session has no id to find it by apart from its secret: it is found
    /// by the SHA-256 of the whole cookie value, which is computed whether the session
    /// exists or not, so the time of a look-up says nothing about which sessions exist that
    /// the hash of a guessed secret would not.
    public func visitor(cookieValue: String, now: Int64, address: String? = nil) throws(ServiceError) -> Visitor {
        guard let bytes = CookieSecret.bytes(of: cookieValue),
            let csrfToken = CookieSecret.formToken(for: cookieValue, purpose: .session)
        else { throw Self.signedOut }
        let hash = CookieSecret.sha256(bytes)
        let store = WebSessionStore(connection: session.connection)
        guard let record = try ServiceError.wrapping({ try store.session(secretSHA256: hash) }),
            now < record.expiresAt, now < record.lastUsedAt + policy.idleSeconds
        else { throw Self.signedOut }
        if now - record.lastUsedAt >= 60 {
            try ServiceError.wrapping {
                try session.asUser(record.userID) {
                    try store.markUsed(userID: record.userID, secretSHA256: hash, at: now, address: address)
                }
            }
        }
        return Visitor(userID: record.userID, expiresAt: record.expiresAt, csrfToken: csrfToken, secretSHA256: hash)
    }

    /// The valid sessions of user `userID` at `now`, most recently used first, `current`'s
    /// marked; never a session's id or its hash.
    public func list(userID: Int64, current: Visitor?, now: Int64) throws(ServiceError) -> [WebSessionStore.Listed] {
        try ServiceError.wrapping {
            try session.asUser(userID) {
                try WebSessionStore(connection: session.connection).list(
                    userID: userID, current: current?.secretSHA256, now: now, idleSince: now - policy.idleSeconds)
            }
        }
    }

    /// Ends every session of user `userID` but `keeping` (every one when `nil`); returns
    /// how many ended.
    public func endOthers(userID: Int64, keeping: Visitor?) throws(ServiceError) -> Int {
        try ServiceError.wrapping {
            try session.asUser(userID) {
                try WebSessionStore(connection: session.connection).removeAll(
                    userID: userID, keeping: keeping?.secretSHA256)
            }
        }
    }

    /// Ends `visitor`'s session.
    public func signOut(_ visitor: Visitor) throws(ServiceError) {
        _ = try ServiceError.wrapping {
            try session.asUser(visitor.userID) {
                try WebSessionStore(connection: session.connection).remove(
                    userID: visitor.userID, secretSHA256: visitor.secretSHA256)
            }
        }
    }
}
