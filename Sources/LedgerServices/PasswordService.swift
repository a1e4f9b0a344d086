import Foundation
public import LedgerStore
import PostgresClient

/// Sign-in passwords: set by the operator (`sleepledger user passwd`), changed by their
/// owner, checked at sign-in. Stored as Argon2id hashes (``PasswordHashing``) of the
/// NFKC form (``PasswordRules``); a change of password ends the person's other web
/// sessions, and the operator's setting ends all of them.
public struct PasswordService {
    /// The session every call uses.
    public let session: LedgerSession
    /// The hashing every call uses (shared by the process: it bounds hashes at once).
    public let hashing: PasswordHashing

    /// Creates the service over `session` with `hashing`.
    public init(session: LedgerSession, hashing: PasswordHashing) {
        self.session = session
        self.hashing = hashing
    }

    /// Sets the password of the user with `handle` at `now` (the operator's command, with
    /// every row visible) and ends every web session of theirs; returns the user and how
    /// many sessions ended.
    public func set(handle: String, password: String, now: Int64) throws(ServiceError) -> (
        user: User, endedSessions: Int
    ) {
        let bytes = try PasswordRules.newPassword(password)
        let user = try UserService(session: session).user(handle: handle)
        let hash = try hashing.hash(bytes)
        let ended = try ServiceError.wrapping {
            try session.connection.transaction { connection in
                try PasswordStore(connection: connection).set(userID: user.id, passwordHash: hash, at: now)
                return try WebSessionStore(connection: connection).removeAll(userID: user.id)
            }
        }
        return (user, ended)
    }

    /// Changes the password of user `userID`, who proved `current`, to `new` at `now`, as
    /// that user (row-level security applies on the server's role), and ends their other
    /// web sessions: every one except `keeping` (the session making the change; `nil`
    /// ends all); with `revokingTokens`, every valid API token of theirs is revoked in the
    /// same transaction. ``ServiceError/Kind/forbidden`` when `current` is wrong.
    public func change(
        userID: Int64, current: String, new: String, keeping: WebSessionService.Visitor?, revokingTokens: Bool = false,
        now: Int64
    ) throws(ServiceError) {
        let bytes = try PasswordRules.newPassword(new)
        let stored = try ServiceError.wrapping {
            try session.asUser(userID) {
                try PasswordStore(connection: session.connection).passwordHash(userID: userID)
            }
        }
        guard let presented = PasswordRules.normalized(current), try hashing.verify(presented, against: stored),
            stored != nil
        else {
            throw ServiceError(.forbidden, "the current password is wrong")
        }
        let hash = try hashing.hash(bytes)
        try ServiceError.wrapping {
            try session.asUser(userID) {
                try PasswordStore(connection: session.connection).set(userID: userID, passwordHash: hash, at: now)
                try WebSessionStore(connection: session.connection).removeAll(
                    userID: userID, keeping: keeping?.secretSHA256)
                if revokingTokens { try TokenStore(connection: session.connection).revokeAll(userID: userID, at: now) }
            }
        }
    }

    /// The user whose handle is `handle` when `password` is theirs; `nil` otherwise
    /// (unknown handle, no password set, wrong password: the same time is spent on each).
    /// Looked up before the user is known (`sleepledger_password_credentials`).
    func check(handle: String, password: String) throws(ServiceError) -> Int64? {
        let key = handle.utf8.count <= 4 * UserService.maximumHandleBytes ? try? UserHandle.key(handle) : nil
        var credential: PasswordStore.Credential?
        if let key {
            credential = try ServiceError.wrapping {
                try PasswordStore(connection: session.connection).credential(handleKey: key)
            }
        }
        // An over-long password matches nothing, yet costs a hash like the others.
        let presented = PasswordRules.normalized(password) ?? Array(password.utf8.prefix(PasswordRules.maximumBytes))
        let matches = try hashing.verify(presented, against: credential?.passwordHash)
        guard matches, let credential, PasswordRules.normalized(password) != nil else { return nil }
        return credential.userID
    }
}
