public import SleepCore

/// A SleepLedger user: the owner of samples, imports and summaries.
public struct User: Sendable, Hashable {
    /// Database key; every user-data row carries it as `user_id`.
    public let id: Int64
    /// The handle people type (`anna`), in NFC; unique by its key regardless of letter
    /// case and accent encoding (``UserHandle``).
    public let handle: String
    /// IANA zone used when a sample carries none (for example `Europe/Berlin`).
    public let timeZoneIdentifier: String
    /// Target and minimum sleep.
    public let goals: SleepGoals
    /// When the user was added, whole UTC seconds since 1970.
    public let createdAt: Int64

    /// Creates a user value; ``UserStore`` is the normal source.
    public init(id: Int64, handle: String, timeZoneIdentifier: String, goals: SleepGoals, createdAt: Int64) {
        self.id = id
        self.handle = handle
        self.timeZoneIdentifier = timeZoneIdentifier
        self.goals = goals
        self.createdAt = createdAt
    }
}
