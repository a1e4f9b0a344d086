public import SleepCore

/// One user's row of `sleepledger-admin users`: settings, what the rollup stored for the
/// weekly horizon, and bookkeeping times, read in one query by ``AdminQueries``.
public struct AdminUserOverview: Sendable, Hashable {
    /// The user.
    public let user: User
    /// Tracked nights of the last 10 years, as the rollup stored them (the `10y` summary's
    /// `tracked_nights`); 0 when never rolled up.
    public let trackedNights: Int
    /// Wake day of the most recent stored night, if any.
    public let lastNightWakeDay: LocalDate?
    /// Asleep seconds of that night.
    public let lastNightAsleepSeconds: Int64?
    /// The stored weekly summary's headline; `nil` when the rollup has not written one.
    public let weekly: SummaryHeadline?
    /// When the user's most recent import started, epoch seconds; `nil` without imports.
    public let lastImportAt: Int64?
    /// When the rollup last wrote the user's results, epoch seconds; `nil` when never.
    public let lastRollupAt: Int64?

    /// Creates an overview row; ``AdminQueries/userOverviews()`` is the normal source.
    public init(
        user: User, trackedNights: Int, lastNightWakeDay: LocalDate?, lastNightAsleepSeconds: Int64?,
        weekly: SummaryHeadline?, lastImportAt: Int64?, lastRollupAt: Int64?
    ) {
        self.user = user
        self.trackedNights = trackedNights
        self.lastNightWakeDay = lastNightWakeDay
        self.lastNightAsleepSeconds = lastNightAsleepSeconds
        self.weekly = weekly
        self.lastImportAt = lastImportAt
        self.lastRollupAt = lastRollupAt
    }
}
