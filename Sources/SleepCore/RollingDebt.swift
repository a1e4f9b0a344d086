/// The rolling 14-night debt (spec section 4, beyond the Somnus seeds) with its recovery
/// projection. Present only when the window holds enough tracked nights (default 5).
///
/// Each tracked night waking d days before the as-of day (d = 0 on the as-of day) weighs
/// r^d (r = 0.872); the weights of the tracked nights are renormalised to sum to 1, and
/// rolling debt = max(0, n x sum of w x (target - asleep)) with n tracked nights, so
/// surplus nights repay debt.
public struct RollingDebt: Sendable, Hashable, Codable {
    /// The window of wake days (14 days ending on the as-of day).
    public var window: WakeDayRange
    /// Rolling debt in seconds, rounded to the nearest second.
    public var debtSeconds: Int64
    /// Tracked nights in the window (n).
    public var trackedNights: Int
    /// Severity of the unrounded rolling debt (same thresholds as any debt figure).
    public var severity: DebtSeverity
    /// One projection per plan of ``MetricRules/recoveryPlanExtraSeconds``, in that order.
    public var recovery: [RecoveryPlan]

    /// Creates a value from already computed figures.
    public init(
        window: WakeDayRange, debtSeconds: Int64, trackedNights: Int, severity: DebtSeverity,
        recovery: [RecoveryPlan]
    ) {
        self.window = window
        self.debtSeconds = debtSeconds
        self.trackedNights = trackedNights
        self.severity = severity
        self.recovery = recovery
    }

    /// Computes the rolling debt as of `asOf` from `nights` (any order; nights outside the
    /// window are ignored). `nil` when fewer than the minimum tracked nights fall in it.
    public init?(
        nights: some Sequence<Night>, goals: SleepGoals, asOf: LocalDate,
        rules: MetricRules = .standard
    ) {
        let asOfDay = asOf.daysSinceEpoch
        let span = max(1, rules.rollingWindowNights)
        let balances = nights.compactMap { night -> (day: Int, balance: Double)? in
            let day = night.wakeDay.daysSinceEpoch
            guard day <= asOfDay, day > asOfDay - span else { return nil }
            return (day, Double(goals.targetSeconds - night.asleepSeconds))
        }
        self.init(balances: balances, goals: goals, asOf: asOf, rules: rules)
    }

    /// Core computation from (wake day number, target - asleep seconds) pairs already in
    /// the window.
    init?(
        balances: [(day: Int, balance: Double)], goals: SleepGoals, asOf: LocalDate,
        rules: MetricRules
    ) {
        let span = max(1, rules.rollingWindowNights)
        guard balances.count >= rules.rollingMinimumTrackedNights, !balances.isEmpty else {
            return nil
        }
        let asOfDay = asOf.daysSinceEpoch
        let current = RollingDebt.rollingSeconds(
            balances, asOfDay: asOfDay, span: span, decay: rules.rollingDecay)
        let goalHours = SpecArithmetic.hours(Double(rules.recoveryGoalSeconds))
        var plans: [RecoveryPlan] = []
        for extra in rules.recoveryPlanExtraSeconds {
            var needed: Int? = nil
            if SpecArithmetic.hours(current) < goalHours {
                needed = 0
            } else {
                var simulated = balances
                var k = 1
                while k <= rules.recoveryNightCap {
                    simulated.append((asOfDay + k, -Double(extra)))
                    simulated.removeAll { $0.day <= asOfDay + k - span }
                    let value = RollingDebt.rollingSeconds(
                        simulated, asOfDay: asOfDay + k, span: span, decay: rules.rollingDecay)
                    if SpecArithmetic.hours(value) < goalHours {
                        needed = k
                        break
                    }
                    k += 1
                }
            }
            plans.append(
                RecoveryPlan(
                    extraSeconds: extra, nightsNeeded: needed, nightCap: rules.recoveryNightCap))
        }
        self.init(
            window: WakeDayRange(first: asOf.adding(days: -(span - 1)), last: asOf),
            debtSeconds: Int64(current.rounded()), trackedNights: balances.count,
            severity: DebtSeverity(debtSeconds: current, rules: rules), recovery: plans)
    }

    /// max(0, n x sum of normalised r^d x balance) over the nights within `span` days
    /// ending on `asOfDay`.
    static func rollingSeconds(
        _ balances: [(day: Int, balance: Double)], asOfDay: Int, span: Int, decay: Double
    ) -> Double {
        var weightSum = 0.0
        var weighted = 0.0
        var n = 0
        for item in balances {
            let d = asOfDay - item.day
            guard d >= 0, d < span else { continue }
            let weight = pow(decay, d)
            weightSum += weight
            weighted += weight * item.balance
            n += 1
        }
        guard n > 0, weightSum > 0 else { return 0 }
        return max(0, Double(n) * weighted / weightSum)
    }

    enum CodingKeys: String, CodingKey {
        case window
        case debtSeconds = "debt_seconds"
        case trackedNights = "tracked_nights"
        case severity
        case recovery
    }
}

/// r^d for a small non-negative integer d without Foundation.
private func pow(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    for _ in 0..<max(0, exponent) { result *= base }
    return result
}
