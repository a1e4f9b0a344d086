/// The goal band drawn on duration charts (spec section 4): from Minimum Acceptable to
/// Target Sleep.
public struct GoalBand: Sendable, Hashable, Codable {
    /// Lower edge: Minimum Acceptable, seconds (default 7 h).
    public var minimumSeconds: Int64
    /// Upper edge: Target Sleep, seconds (default 8 h).
    public var targetSeconds: Int64

    /// Creates a band.
    public init(minimumSeconds: Int64, targetSeconds: Int64) {
        self.minimumSeconds = minimumSeconds
        self.targetSeconds = targetSeconds
    }

    /// The band of `goals`.
    public init(goals: SleepGoals) {
        self.init(minimumSeconds: goals.minimumSeconds, targetSeconds: goals.targetSeconds)
    }

    /// The goals this band was drawn from.
    public var goals: SleepGoals {
        SleepGoals(targetSeconds: targetSeconds, minimumSeconds: minimumSeconds)
    }

    /// Whether an asleep time is below the band (compared in hours rounded to 9 decimals).
    public func isBelowMinimum(asleepSeconds: Double) -> Bool {
        SpecArithmetic.hours(asleepSeconds) < SpecArithmetic.hours(Double(minimumSeconds))
    }

    enum CodingKeys: String, CodingKey {
        case minimumSeconds = "minimum_seconds"
        case targetSeconds = "target_seconds"
    }
}
