/// Direction of nightly asleep hours over a window (spec section 6): with at least 3
/// nights, the mean of the later floor(n/2) nights minus the mean of the earlier floor(n/2)
/// (the middle night of an odd count is in neither half).
public struct SleepTrend: Sendable, Hashable, Codable {
    /// Which way asleep time moves.
    public enum Direction: String, Sendable, Hashable, Codable, CaseIterable {
        /// Later half sleeps at least 0.1 h more.
        case improving
        /// |difference| below 0.1 h.
        case stable
        /// Later half sleeps at least 0.1 h less.
        case declining
    }

    /// The direction.
    public var direction: Direction
    /// Later-half mean minus earlier-half mean, hours (unrounded).
    public var differenceHours: Double
    /// Nights in the window (n).
    public var nights: Int

    /// Creates a trend.
    public init(direction: Direction, differenceHours: Double, nights: Int) {
        self.direction = direction
        self.differenceHours = differenceHours
        self.nights = nights
    }

    /// The trend of `nights` ordered by wake day (sorted here); `nil` with fewer than the
    /// minimum (default 3).
    public init?(nights: [Night], rules: MetricRules = .standard) {
        let sorted = nights.sorted { ($0.wakeDay, $0.onset) < ($1.wakeDay, $1.onset) }
        self.init(asleepSeconds: sorted.map(\.asleepSeconds), rules: rules)
    }

    /// The trend of nightly asleep seconds already in wake-day order.
    init?(asleepSeconds values: [Int64], rules: MetricRules) {
        let n = values.count
        guard n >= max(2, rules.trendMinimumNights) else { return nil }
        let half = n / 2
        let earlier = values.prefix(half).reduce(Int64(0), +)
        let later = values.suffix(half).reduce(Int64(0), +)
        let difference = Double(later - earlier) / Double(half) / 3600
        let direction: Direction
        if abs(SpecArithmetic.rounded(difference)) < SpecArithmetic.rounded(rules.trendStableHours) {
            direction = .stable
        } else {
            direction = difference > 0 ? .improving : .declining
        }
        self.init(direction: direction, differenceHours: difference, nights: n)
    }

    enum CodingKeys: String, CodingKey {
        case direction
        case differenceHours = "difference_hours"
        case nights
    }
}
