/// How serious a debt figure is (spec section 4): above 5 h critical, above 2 h
/// concerning, else normal. Exactly 2 h or 5 h is not "above".
public enum DebtSeverity: String, Sendable, Hashable, Codable, CaseIterable {
    /// At most the concerning threshold (default 2 h).
    case normal
    /// Above the concerning threshold, at most the critical one (default 5 h).
    case concerning
    /// Above the critical threshold (default 5 h).
    case critical

    /// Classifies `debtSeconds`, comparing hours rounded to 9 decimals (spec section 0).
    public init(debtSeconds: Double, rules: MetricRules = .standard) {
        let hours = SpecArithmetic.hours(debtSeconds)
        if hours > SpecArithmetic.hours(Double(rules.criticalDebtSeconds)) {
            self = .critical
        } else if hours > SpecArithmetic.hours(Double(rules.concerningDebtSeconds)) {
            self = .concerning
        } else {
            self = .normal
        }
    }
}
