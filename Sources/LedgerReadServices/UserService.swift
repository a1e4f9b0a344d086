import Foundation
public import LedgerStore
import PostgresClient
public import SleepCore
import SleepReports

/// The people whose sleep is tracked: listing them, one by handle, a person's account, the
/// admin overview, and the rules a handle, a zone and the goals must follow. Adding,
/// changing and removing users are in `LedgerServices` (`UserService+Changes.swift`), so
/// the read-only tool does not carry them.
///
/// Rules: a handle is 1-64 characters (as a person counts them: a letter with its accents
/// is one), each a letter, digit, `.`, `_`, `-` or `@`, at most 256 bytes in UTF-8; it is
/// stored in NFC and unique by its key, regardless of letter case and of how its accents
/// are encoded (`LedgerStore.UserHandle`: `Åsa` and `åsa` are one user, `Straße` and
/// `STRASSE` too). A zone is an IANA name this system knows (or `UTC`). Goals satisfy
/// 0 < minimum <= target <= 24 h (the database's `users_goals_check`). A changed zone or
/// goal marks the user's summaries stale for the next rollup.
public struct UserService {
    /// The session every call uses.
    public let session: LedgerSession

    /// Creates the service over `session`.
    public init(session: LedgerSession) {
        self.session = session
    }

    package var store: UserStore { UserStore(connection: session.connection) }

    /// Every user, by handle.
    public func list() throws(ServiceError) -> [User] {
        try ServiceError.wrapping { try store.list() }
    }

    /// The user with `handle` (any letter case, any encoding of its accents).
    public func user(handle: String) throws(ServiceError) -> User {
        guard let user = try ServiceError.wrapping({ try store.find(handle: handle) }) else {
            throw Self.unknown(handle)
        }
        return user
    }

    /// A person's own account as the API shows it: settings and bookkeeping times.
    public struct Account: Sendable, Hashable {
        /// The user.
        public var user: User
        /// When their latest import started, epoch seconds.
        public var lastImportAt: Int64?
        /// When the rollup last wrote their results, epoch seconds.
        public var lastRollupAt: Int64?
        /// Whether new samples or changed settings wait for the next rollup (the stored
        /// results do not show them yet).
        public var isRollupPending: Bool
    }

    /// The account of user `id`, read as that user (row-level security applies on the
    /// server's role).
    public func account(id: Int64) throws(ServiceError) -> Account {
        let account = try ServiceError.wrapping {
            try session.asUser(id) { () -> Account? in
                guard let user = try store.find(id: id) else { return nil }
                let rollup = try RollupStateStore(connection: session.connection).lastRollup(userID: id)
                return Account(
                    user: user,
                    lastImportAt: try AdminQueries(connection: session.connection).latestImportStart(userID: id),
                    lastRollupAt: rollup.at, isRollupPending: rollup.isStale)
            }
        }
        guard let account else { throw ServiceError(.notFound, "no such user") }
        return account
    }

    package static func unknown(_ handle: String) -> ServiceError {
        ServiceError(.notFound, "no user with handle \(MessageText.quoted(handle))")
    }

    package static func taken(_ handle: String) -> ServiceError {
        ServiceError(.alreadyExists, "a user with handle \(MessageText.quoted(handle)) already exists")
    }

    // MARK: Rules

    /// The most characters a handle holds.
    public static let maximumHandleCharacters = 64
    /// The most bytes a handle holds in UTF-8, NFC (bounds a character's accents).
    public static let maximumHandleBytes = 256

    /// Refuses a handle that is not 1-64 letters, digits, `.`, `_`, `-` or `@`, counted
    /// as characters of its NFC form (a letter with its accents is one character, however
    /// its accents are encoded), or that holds more than 256 bytes in UTF-8.
    public static func validate(handle: String) throws(ServiceError) {
        // Bounded work: NFC shrinks text to a third of its bytes at most (Hangul jamo), so
        // a handle over 1 KiB cannot come under 256 bytes and is refused unnormalized.
        let display =
            handle.utf8.count <= 4 * maximumHandleBytes
            ? try ServiceError.wrapping { try UserHandle.displayForm(handle) } : handle
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
        guard display.utf8.count <= maximumHandleBytes else {
            throw ServiceError(
                .invalidInput,
                "invalid handle: \(display.utf8.count) bytes in UTF-8; a handle holds at most \(maximumHandleBytes) "
                    + "(1-\(maximumHandleCharacters) letters, digits, '.', '_', '-' or '@', without piles of accents)")
        }
        guard (1...maximumHandleCharacters).contains(display.count), display.unicodeScalars.allSatisfy(allowed.contains)
        else {
            throw ServiceError(
                .invalidInput,
                "invalid handle \(MessageText.quoted(handle)): use 1-\(maximumHandleCharacters) letters, digits, "
                    + "'.', '_', '-' or '@'")
        }
    }

    /// Refuses a zone this system's time zone database does not know.
    public static func validate(timeZone: String) throws(ServiceError) {
        guard knownTimeZones.contains(timeZone) || timeZone == "UTC" else {
            throw ServiceError(
                .invalidInput,
                "unknown time zone \(MessageText.quoted(timeZone)); use an IANA name such as Europe/Berlin")
        }
    }

    /// The longest target or minimum sleep: a day (the database's `users_goals_check`).
    public static let maximumGoalSeconds: Int64 = 86_400

    /// Refuses goals outside 0 < minimum <= target <= 24 h, the limits the database
    /// checks too, saying which limit and what the goals must satisfy.
    public static func validate(goals: SleepGoals) throws(ServiceError) {
        let limits = "goals must satisfy 0 < minimum <= target <= 24h"
        guard goals.minimumSeconds > 0 else {
            throw ServiceError(.invalidInput, "minimum acceptable sleep must be above zero")
        }
        guard goals.minimumSeconds <= maximumGoalSeconds else {
            throw ServiceError(
                .invalidInput,
                "minimum acceptable sleep \(SleepDuration.format(seconds: goals.minimumSeconds)) is longer than a day; "
                    + limits)
        }
        guard goals.targetSeconds <= maximumGoalSeconds else {
            throw ServiceError(
                .invalidInput,
                "target sleep \(SleepDuration.format(seconds: goals.targetSeconds)) is longer than a day; " + limits)
        }
        guard goals.targetSeconds >= goals.minimumSeconds else {
            throw ServiceError(
                .invalidInput,
                "target sleep \(SleepDuration.format(seconds: goals.targetSeconds)) is below the minimum "
                    + SleepDuration.format(seconds: goals.minimumSeconds))
        }
    }

    /// IANA zone names known to this system's time zone database.
    package static let knownTimeZones = Set(TimeZone.knownTimeZoneIdentifiers)
}
