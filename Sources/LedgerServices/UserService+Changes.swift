public import LedgerReadServices
public import LedgerStore
import PostgresClient
public import SleepCore

/// Adding, changing and removing users, under the rules of ``LedgerReadServices/UserService``
/// (the reads live with it in the read-only services).
extension UserService {
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
            throw Self.taken(handle)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Changes the user's zone and goals, and with `newHandle` renames the user; `nil`
    /// keeps a value. Returns the user as stored. A new handle follows the handle rules
    /// and may not be another user's (``ServiceError/Kind/alreadyExists``); it may differ
    /// from the current one in letter case only.
    @discardableResult
    public func update(
        handle: String, timeZone: String?, targetSeconds: Int64?, minimumSeconds: Int64?, newHandle: String? = nil,
        workDays: WorkDays? = nil, target: SleepTarget? = nil
    ) throws(ServiceError) -> User {
        if let timeZone { try Self.validate(timeZone: timeZone) }
        if let newHandle { try Self.validate(handle: newHandle) }
        let user = try user(handle: handle)
        let goals = SleepGoals(
            targetSeconds: targetSeconds ?? user.goals.targetSeconds,
            minimumSeconds: minimumSeconds ?? user.goals.minimumSeconds, workDays: workDays ?? user.goals.workDays,
            target: target ?? user.goals.target)
        try Self.validate(goals: goals)
        do {
            return try store.update(
                handle: handle, newHandle: newHandle, timeZone: timeZone ?? user.timeZoneIdentifier, goals: goals)
        } catch let error as StoreError where error.kind == .notFound {
            throw Self.unknown(handle)
        } catch let error as PostgresError where error.kind == .alreadyExists {
            throw Self.taken(newHandle ?? handle)
        } catch {
            throw ServiceError(error)
        }
    }
}
