public import SleepCore

/// The headline columns of one stored summary (table `summaries`): what the admin CLI
/// lists, sorts and filters by without decoding the summary JSON.
public struct SummaryHeadline: Sendable, Hashable {
    /// The user's id.
    public let userID: Int64
    /// The user's handle.
    public let handle: String
    /// The horizon.
    public let horizon: Horizon
    /// The as-of day (the user's local today when the rollup ran).
    public let asOf: LocalDate
    /// Debt over the window's tracked nights, seconds.
    public let debtSeconds: Int64
    /// Net balance (surplus minus deficit) over the window, seconds.
    public let netBalanceSeconds: Int64
    /// Debt severity.
    public let severity: DebtSeverity
    /// Overall score 0-100.
    public let score: Int
    /// Grade of the score.
    public let grade: SleepGrade
    /// Tracked nights in the window.
    public let trackedNights: Int
    /// Wake day of the last night (the as-of day or the day before), if any.
    public let lastNightWakeDay: LocalDate?
    /// Asleep seconds of that night.
    public let lastNightAsleepSeconds: Int64?
    /// When the rollup wrote the summary, epoch seconds.
    public let computedAt: Int64

    /// Creates a headline; ``SummaryStore`` is the normal source.
    public init(
        userID: Int64, handle: String, horizon: Horizon, asOf: LocalDate, debtSeconds: Int64,
        netBalanceSeconds: Int64, severity: DebtSeverity, score: Int, grade: SleepGrade, trackedNights: Int,
        lastNightWakeDay: LocalDate?, lastNightAsleepSeconds: Int64?, computedAt: Int64
    ) {
        self.userID = userID
        self.handle = handle
        self.horizon = horizon
        self.asOf = asOf
        self.debtSeconds = debtSeconds
        self.netBalanceSeconds = netBalanceSeconds
        self.severity = severity
        self.score = score
        self.grade = grade
        self.trackedNights = trackedNights
        self.lastNightWakeDay = lastNightWakeDay
        self.lastNightAsleepSeconds = lastNightAsleepSeconds
        self.computedAt = computedAt
    }
}
