public import SleepCore

/// The debt series of one horizon as a document: per bucket (day, week, month or year)
/// the shortfall against the target, the net balance, tracked nights, average asleep time
/// and the running cumulative debt, with the goals and totals it is measured against.
/// `sleepledger-admin debt --format json` prints it and `GET /api/v1/debt` serves it;
/// its parts have the keys of docs/summary-json.md.
public struct DebtSeries: Codable, Sendable, Hashable {
    /// The user's handle.
    public var handle: String
    /// The horizon.
    public var horizon: Horizon
    /// The as-of day of the summary it comes from.
    public var asOf: LocalDate
    /// The minimum and target the buckets are measured against.
    public var goalBand: GoalBand
    /// The totals over the horizon's window.
    public var debt: DebtTotals
    /// One entry per chart bucket, oldest first.
    public var buckets: [HorizonBucket]

    /// The series of `summary`, for the user `handle`.
    public init(summary: Summary, handle: String) {
        self.handle = handle
        horizon = summary.horizon
        asOf = summary.asOf
        goalBand = summary.goalBand
        debt = summary.debt
        buckets = summary.buckets
    }

    enum CodingKeys: String, CodingKey {
        case handle, horizon, debt, buckets
        case asOf = "as_of"
        case goalBand = "goal_band"
    }
}
