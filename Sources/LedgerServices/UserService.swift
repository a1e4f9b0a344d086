import Foundation
public import LedgerStore
import PostgresClient
public import SleepCore
import SleepReports

/// The people whose sleep is tracked: adding, listing, changing and removing users, with
/// the rules a handle, a zone and the goals must follow.
///
/// Rules: a handle is 1-64 letters, digits, `.`, `_`, `-` or `@`, unique in any letter
/// case; a zone is an IANA name this system knows (or `UTC`); the minimum acceptable
/// sleep is above zero and the target sleep not below it. A changed zone or goal marks
/// the user's summaries stale for the next rollup.
public struct UserService {
    /// The session every call uses.
    public let session: LedgerSession

    /// Creates the service over `session`.
    public init(session: LedgerSession) {
        self.session = session
    }

    private var store: UserStore { UserStore(connection: session.connection) }

    /// Adds a user; goals not given are the defaults (``SleepCore/SleepGoals``).
    @discardableResult
    public func add(handle: String, timeZone: String, targetSeconds: Int64?, minimumSeconds: Int64?)
        throws(ServiceError) -> User
    {
        let goals = SleepGoals(
            targetSeconds: targetSeconds ?? SleepGoals().targetSeconds,
            minimumSeconds: minimumSeconds ?? SleepGoals().minimumSeconds)
        try Self.validate(timeZone: timeZone)
        try Self.validate(goals: goals)
        try Self.validate(handle: handle)
        do {
            return try store.add(handle: handle, timeZone: timeZone, goals: goals)
        } catch let error as PostgresError where error.kind == .alreadyExists {
            throw ServiceError(.alreadyExists, "a user with handle '\(handle)' already exists")
        } catch {
            throw ServiceError(error)
        }
    }

    /// Every user, by handle.
    public func list() throws(ServiceError) -> [User] {
        try ServiceError.wrapping { try store.list() }
    }

    /// The user with `handle` (any letter case).
    public func user(handle: String) throws(ServiceError) -> User {
        guard let user = try ServiceError.wrapping({ try store.find(handle: handle) }) else {
            throw Self.unknown(handle)
        }
        return user
    }

    /// Changes the user's zone and goals; `nil` keeps a value. Returns the user as stored.
    @discardableResult
    public func update(handle: String, timeZone: String?, targetSeconds: Int64?, minimumSeconds: Int64?)
        throws(ServiceError) -> User
    {
        if let timeZone { try Self.validate(timeZone: timeZone) }
        let user = try user(handle: handle)
        let goals = SleepGoals(
            targetSeconds: targetSeconds ?? user.goals.targetSeconds,
            minimumSeconds: minimumSeconds ?? user.goals.minimumSeconds)
        try Self.validate(goals: goals)
        do {
            return try store.update(handle: handle, timeZone: timeZone ?? user.timeZoneIdentifier, goals: goals)
        } catch let error as StoreError where error.kind == .notFound {
            throw Self.unknown(handle)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Deletes the user and, by cascade, every row of theirs. When an import of the user
    /// is running, `onWait` is called with what holds the user's import lock (`nil` when
    /// that cannot be told) and the removal waits for the import to end.
    public func remove(handle: String, onWait: (ImportLockHolder?) -> Void = { _ in }) throws(ServiceError) {
        do {
            try store.remove(handle: handle, onWait: onWait)
        } catch let error as StoreError where error.kind == .notFound {
            throw Self.unknown(handle)
        } catch {
            throw ServiceError(error)
        }
    }

    /// One row per user, by handle: settings, stored weekly headline, last import and
    /// rollup (the admin overview).
    public func overviews() throws(ServiceError) -> [AdminUserOverview] {
        try ServiceError.wrapping { try AdminQueries(connection: session.connection).userOverviews() }
    }

    static func unknown(_ handle: String) -> ServiceError {
        ServiceError(.notFound, "no user with handle '\(handle)'")
    }

    // MARK: Rules

    /// Refuses a handle that is not 1-64 letters, digits, `.`, `_`, `-` or `@`.
    public static func validate(handle: String) throws(ServiceError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
        guard (1...64).contains(handle.count), handle.unicodeScalars.allSatisfy(allowed.contains) else {
            throw ServiceError(
                .invalidInput, "invalid handle '\(handle)': use 1-64 letters, digits, '.', '_', '-' or '@'")
        }
    }

    /// Refuses a zone this system's time zone database does not know.
    public static func validate(timeZone: String) throws(ServiceError) {
        guard knownTimeZones.contains(timeZone) || timeZone == "UTC" else {
            throw ServiceError(
                .invalidInput, "unknown time zone '\(timeZone)'; use an IANA name such as Europe/Berlin")
        }
    }

    /// Refuses a minimum of zero or less and a target below the minimum.
    public static func validate(goals: SleepGoals) throws(ServiceError) {
        guard goals.minimumSeconds > 0 else {
            throw ServiceError(.invalidInput, "minimum acceptable sleep must be above zero")
        }
        guard goals.targetSeconds >= goals.minimumSeconds else {
            throw ServiceError(
                .invalidInput,
                "target sleep \(SleepDuration.format(seconds: goals.targetSeconds)) is below the minimum "
                    + SleepDuration.format(seconds: goals.minimumSeconds))
        }
    }

    /// IANA zone names known to this system's time zone database.
    static let knownTimeZones = Set(TimeZone.knownTimeZoneIdentifiers)
}
