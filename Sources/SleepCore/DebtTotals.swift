/// Debt figures over the tracked nights of a window (spec section 4). Untracked days
/// contribute nothing: missing data never becomes debt.
public struct DebtTotals: Sendable, Hashable, Codable {
    /// Sum of nightly shortfalls max(0, target - asleep), seconds. Surplus nights do not
    /// cancel it.
    public var debtSeconds: Int64
    /// Sum of (asleep - target), seconds: negative means behind, positive ahead.
    public var netBalanceSeconds: Int64
    /// Tracked nights in the window.
    public var trackedNights: Int
    /// Net balance / tracked nights, rounded to the nearest second; absent with no night.
    public var averageNightlyBalanceSeconds: Int64?
    /// Mean asleep seconds of the tracked nights, rounded to the nearest second; absent
    /// with no night.
    public var averageAsleepSeconds: Int64?
    /// Severity of ``debtSeconds``.
    public var severity: DebtSeverity

    /// Creates totals from already computed figures.
    public init(
        debtSeconds: Int64, netBalanceSeconds: Int64, trackedNights: Int,
        averageNightlyBalanceSeconds: Int64?, averageAsleepSeconds: Int64?, severity: DebtSeverity
    ) {
        self.debtSeconds = debtSeconds
        self.netBalanceSeconds = netBalanceSeconds
        self.trackedNights = trackedNights
        self.averageNightlyBalanceSeconds = averageNightlyBalanceSeconds
        self.averageAsleepSeconds = averageAsleepSeconds
        self.severity = severity
    }

    /// Computes the totals of `nights` (all of them count as tracked) against `goals`.
    public init(nights: some Sequence<Night>, goals: SleepGoals, rules: MetricRules = .standard) {
        self.init(asleepSeconds: nights.map(\.asleepSeconds), goals: goals, rules: rules)
    }

    /// Computes the totals of a window of timeline nights.
    init(timeline nights: ArraySlice<MetricNight>, goals: SleepGoals, rules: MetricRules) {
        self.init(asleepSeconds: nights.map(\.asleepSeconds), targets: nights.map(\.targetSeconds), rules: rules)
    }

    /// Computes the totals of nights given by their asleep seconds.
    init(asleepSeconds values: [Int64], goals: SleepGoals, rules: MetricRules) {
        self.init(asleepSeconds: values, targets: values.map { _ in goals.targetSeconds }, rules: rules)
    }

    /// Computes the totals of nights given by their asleep seconds, each against its own
    /// target (`targets[i]` for `values[i]`).
    init(asleepSeconds values: [Int64], targets: [Int64], rules: MetricRules) {
        var debt: Int64 = 0
        var net: Int64 = 0
        var asleep: Int64 = 0
        for (value, target) in zip(values, targets) {
            let balance = value - target
            net += balance
            debt += max(0, -balance)
            asleep += value
        }
        let count = values.count
        self.init(
            debtSeconds: debt, netBalanceSeconds: net, trackedNights: count,
            averageNightlyBalanceSeconds: count == 0 ? nil : DebtTotals.roundedAverage(net, count),
            averageAsleepSeconds: count == 0 ? nil : DebtTotals.roundedAverage(asleep, count),
            severity: DebtSeverity(debtSeconds: Double(debt), rules: rules))
    }

    enum CodingKeys: String, CodingKey {
        case debtSeconds = "debt_seconds"
        case netBalanceSeconds = "net_balance_seconds"
        case trackedNights = "tracked_nights"
        case averageNightlyBalanceSeconds = "average_nightly_balance_seconds"
        case averageAsleepSeconds = "average_asleep_seconds"
        case severity
    }
}

extension DebtTotals {
    /// `total / count` rounded to the nearest whole second, half away from zero.
    static func roundedAverage(_ total: Int64, _ count: Int) -> Int64 {
        Int64((Double(total) / Double(count)).rounded())
    }
}
