/// One recovery projection (spec section 4): how many future nights at Target Sleep plus
/// ``extraSeconds`` bring the rolling 14-night debt strictly under the recovery goal.
public struct RecoveryPlan: Sendable, Hashable, Codable {
    /// Extra sleep above Target Sleep on every simulated night, seconds (+30/+60/+90 min).
    public var extraSeconds: Int64
    /// Nights needed: 0 when the rolling debt is already under the goal; absent when more
    /// than ``nightCap`` nights would be needed.
    public var nightsNeeded: Int?
    /// The simulation's cap (default 30): with ``nightsNeeded`` absent the answer is
    /// "more than `nightCap` nights".
    public var nightCap: Int

    /// Creates a plan result.
    public init(extraSeconds: Int64, nightsNeeded: Int?, nightCap: Int) {
        self.extraSeconds = extraSeconds
        self.nightsNeeded = nightsNeeded
        self.nightCap = nightCap
    }

    /// Whether the plan needs more than ``nightCap`` nights.
    public var isBeyondCap: Bool { nightsNeeded == nil }

    enum CodingKeys: String, CodingKey {
        case extraSeconds = "extra_seconds"
        case nightsNeeded = "nights_needed"
        case nightCap = "night_cap"
    }
}
