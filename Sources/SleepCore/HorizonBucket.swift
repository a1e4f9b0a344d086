/// One chart bucket of a horizon (spec section 4): a day, ISO week, month or year of wake
/// days, cut to the window, listed even when empty.
public struct HorizonBucket: Sendable, Hashable, Codable {
    /// The wake days the bucket covers.
    public var range: WakeDayRange
    /// Sum of nightly shortfalls of the bucket's tracked nights, seconds.
    public var debtSeconds: Int64
    /// Sum of (asleep - target) of the bucket's tracked nights, seconds.
    public var netBalanceSeconds: Int64
    /// Tracked nights in the bucket (0 for an empty bucket).
    public var trackedNights: Int
    /// Mean asleep seconds of the tracked nights, rounded to a whole second; absent when
    /// the bucket is empty.
    public var averageAsleepSeconds: Int64?
    /// Whether the (unrounded) average asleep time is below Minimum Acceptable; false for
    /// an empty bucket.
    public var isBelowMinimum: Bool
    /// Debt summed over this and every earlier bucket of the series, seconds.
    public var cumulativeDebtSeconds: Int64

    /// Creates a bucket from already computed figures.
    public init(
        range: WakeDayRange, debtSeconds: Int64, netBalanceSeconds: Int64, trackedNights: Int,
        averageAsleepSeconds: Int64?, isBelowMinimum: Bool, cumulativeDebtSeconds: Int64
    ) {
        self.range = range
        self.debtSeconds = debtSeconds
        self.netBalanceSeconds = netBalanceSeconds
        self.trackedNights = trackedNights
        self.averageAsleepSeconds = averageAsleepSeconds
        self.isBelowMinimum = isBelowMinimum
        self.cumulativeDebtSeconds = cumulativeDebtSeconds
    }

    enum CodingKeys: String, CodingKey {
        case range
        case debtSeconds = "debt_seconds"
        case netBalanceSeconds = "net_balance_seconds"
        case trackedNights = "tracked_nights"
        case averageAsleepSeconds = "average_asleep_seconds"
        case isBelowMinimum = "below_minimum"
        case cumulativeDebtSeconds = "cumulative_debt_seconds"
    }
}
