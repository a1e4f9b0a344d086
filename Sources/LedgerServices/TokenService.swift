import Foundation
import LedgerCrypto
public import LedgerStore
import PostgresClient

/// Personal API tokens: created for a user and printed once, listed without their secret,
/// revoked, and checked on every request the server receives.
///
/// A token reads `sl_<id>_<secret>`: `<id>` is a random 63-bit number in 16 lowercase hex
/// digits (how the token is found), `<secret>` 32 bytes from the system's secure random
/// source in base64url without padding (43 characters). Only SHA-256 of the secret bytes is
/// stored, and a presented secret is compared with it in constant time. A check does the
/// same work whether the id exists or not: an unknown id's secret is hashed and compared
/// with a stand-in hash (``standInSHA256``), so the time does not say which ids exist.
public struct TokenService {
    /// A token just created: the only moment its secret exists outside the person's hands.
    public struct Issued: Sendable, Hashable {
        /// The whole token, to show once.
        public var token: String
        /// Its record.
        public var record: TokenStore.Record
    }

    /// Who a valid token speaks for.
    public struct Caller: Sendable, Hashable {
        /// The token's owner.
        public var userID: Int64
        /// The token's id.
        public var tokenID: Int64
        /// What it may do.
        public var scope: TokenStore.Scope
    }

    /// The hashing and comparison a token check does: SHA-256 and ``ConstantTime/equals(_:_:)``
    /// (tests count the calls through stand-ins).
    struct Check: Sendable {
        /// SHA-256 of a presented secret.
        var digest: @Sendable ([UInt8]) -> [UInt8]
        /// The constant-time comparison of two hashes.
        var equals: @Sendable ([UInt8], [UInt8]) -> Bool

        /// SHA-256 and libcrypto's constant-time comparison.
        static let standard = Check(digest: { SHA256Digest.digest(of: $0) }, equals: ConstantTime.equals)
    }

    /// The session every call uses.
    public let session: LedgerSession
    /// How presented secrets are hashed and compared.
    let check: Check

    /// Creates the service over `session`.
    public init(session: LedgerSession) {
        self.init(session: session, check: .standard)
    }

    /// Creates the service over `session`, hashing and comparing with `check`.
    init(session: LedgerSession, check: Check) {
        self.session = session
        self.check = check
    }

    private var store: TokenStore { TokenStore(connection: session.connection) }

    /// The name a token gets when none is given.
    public static let defaultName = "token"
    /// The scope a token gets when none is given: the person's own data too.
    public static let defaultScope = TokenStore.Scope.full
    /// The most tokens a person may hold that are not revoked.
    public static let maximumValidTokens = 50

    /// Creates a token for `user` named `name` (1-64 characters, no control characters;
    /// ``defaultName`` when `nil`) with `scope` (``defaultScope`` when `nil`); refuses
    /// (``ServiceError/Kind/conflict``) when ``maximumValidTokens`` are valid already.
    public func create(for user: User, name: String? = nil, scope: TokenStore.Scope? = nil) throws(ServiceError)
        -> Issued
    {
        let name = name ?? Self.defaultName
        let scope = scope ?? Self.defaultScope
        guard (1...64).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServiceError(.invalidInput, "a token name is 1-64 characters without control characters")
        }
        guard try list(for: user).count(where: { $0.revokedAt == nil }) < Self.maximumValidTokens else {
            throw ServiceError(.conflict, "you have \(Self.maximumValidTokens) valid tokens already; revoke one first")
        }
        return try ServiceError.wrapping {
            let idBytes = try SecureRandom.bytes(8)
            let id = Int64(bitPattern: idBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1)
            let secret = try SecureRandom.bytes(32)
            let record = try store.add(
                userID: user.id, id: max(id, 1), name: name, scope: scope,
                secretSHA256: SHA256Digest.digest(of: secret))
            return Issued(token: Self.text(id: record.id, secret: secret), record: record)
        }
    }

    /// The user's tokens, newest first, revoked ones included; never a secret.
    public func list(for user: User) throws(ServiceError) -> [TokenStore.Record] {
        try ServiceError.wrapping { try store.list(userID: user.id) }
    }

    /// Revokes the user's token with `id` (16 hex digits, as `token list` shows it).
    public func revoke(for user: User, id text: String, now: Int64) throws(ServiceError) {
        guard let id = Self.id(fromHex: text) else {
            throw ServiceError(.invalidInput, "a token id is 16 hexadecimal digits, as `token list` shows it")
        }
        guard try ServiceError.wrapping({ try store.revoke(userID: user.id, id: id, at: now) }) else {
            throw ServiceError(.notFound, "no valid token with id \(text)")
        }
    }

    /// The caller a presented token (the text after `Bearer `) speaks for, checked against
    /// the stored hash in constant time; ``ServiceError/Kind/unauthorized`` for a token that
    /// is malformed, unknown, revoked or wrong. Records the use at `now` when the last
    /// recorded one is more than a minute old (``TokenStore/Credential/isUseDue(at:)``):
    /// otherwise the look-up is the only statement, one round trip.
    public func authenticate(_ token: String, now: Int64) throws(ServiceError) -> Caller {
        guard let (id, hash) = Self.presented(token, check: check) else { throw Self.refused }
        let credentials = try ServiceError.wrapping { try store.credentials(id: id) }
        return try caller(id: id, hash: hash, among: credentials, now: now)
    }

    /// The refusal of a token that is malformed, unknown, revoked or wrong.
    static let refused = ServiceError(.unauthorized, "a valid API token is required")

    /// The id of a presented token and the SHA-256 of its secret (hashed with `check`);
    /// `nil` when it is no token.
    static func presented(_ token: String, check: Check = .standard) -> (id: Int64, hash: [UInt8])? {
        guard let (id, secret) = parse(token) else { return nil }
        return (id, check.digest(secret))
    }

    /// What an unknown token id's secret is compared with: SHA-256 of bytes no token's
    /// secret decodes to (a secret is 32 bytes), so it matches nothing.
    static let standInSHA256 = SHA256Digest.digest(of: Array("sleepledger: no token has this id".utf8))

    /// The caller of the credential among `credentials` (the valid tokens with id `id`)
    /// whose stored hash is `hash`, compared in constant time; its use recorded at `now`
    /// when due. ``ServiceError/Kind/unauthorized`` when none matches. With no credential
    /// (an unknown or revoked id), `hash` is compared with ``standInSHA256`` all the same.
    func caller(id: Int64, hash: [UInt8], among credentials: [TokenStore.Credential], now: Int64)
        throws(ServiceError) -> Caller
    {
        // Every candidate is compared, so the time does not say which one matched; an
        // unknown id is compared with the stand-in, so the time does not say it is unknown.
        var match: TokenStore.Credential?
        let candidates: [TokenStore.Credential?] = credentials.isEmpty ? [nil] : credentials
        for candidate in candidates {
            let isEqual = check.equals(candidate?.secretSHA256 ?? Self.standInSHA256, hash)
            if isEqual, let candidate { match = candidate }
        }
        guard let match else { throw Self.refused }
        if match.isUseDue(at: now) {
            try ServiceError.wrapping {
                try session.asUser(match.userID) { try store.markUsed(userID: match.userID, id: id, at: now) }
            }
        }
        return Caller(userID: match.userID, tokenID: id, scope: match.scope)
    }

    // MARK: The token text

    static let prefix = "sl_"

    /// A token id as tokens, listings and revocations write it: 16 lowercase hex digits.
    public static func idText(_ id: Int64) -> String {
        let hex = String(UInt64(bitPattern: id), radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// `sl_<16 hex digits>_<base64url secret>`.
    static func text(id: Int64, secret: [UInt8]) -> String {
        prefix + idText(id) + "_"
            + Data(secret).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The id and secret bytes of a token's text; `nil` for anything malformed.
    static func parse(_ token: String) -> (id: Int64, secret: [UInt8])? {
        let utf8 = Array(token.utf8)
        let prefixLength = prefix.utf8.count
        guard utf8.count == prefixLength + 16 + 1 + 43, token.hasPrefix(prefix),
            utf8[prefixLength + 16] == UInt8(ascii: "_"),
            let id = id(fromHex: String(decoding: utf8[prefixLength..<(prefixLength + 16)], as: UTF8.self))
        else { return nil }
        // base64url to base64, byte by byte (Foundation's replacingOccurrences was a
        // twentieth of the server's time per request).
        var base64 = utf8[(prefixLength + 17)...].map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        base64.append(UInt8(ascii: "="))
        guard let secret = Data(base64Encoded: Data(base64)), secret.count == 32,
            // One spelling per token: the id's lowercase hex and the secret's base64url as
            // made (no `+`, `/` or `=`, no other last character that decodes the same).
            text(id: id, secret: Array(secret)) == token
        else { return nil }
        return (id, Array(secret))
    }

    /// A token id from its 16 lowercase or uppercase hex digits.
    static func id(fromHex text: String) -> Int64? {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }),
            let value = UInt64(text, radix: 16), value > 0, value <= UInt64(Int64.max)
        else { return nil }
        return Int64(value)
    }
}
