/// The grade of an overall sleep score (spec section 5). Raw values are the display
/// names used in JSON.
public enum SleepGrade: String, Sendable, Hashable, Codable, CaseIterable {
    /// 90-100.
    case excellent = "Excellent"
    /// 75-89.
    case good = "Good"
    /// 60-74.
    case fair = "Fair"
    /// 40-59.
    case poor = "Poor"
    /// 0-39, and the grade of a window without tracked nights.
    case veryPoor = "Very Poor"

    /// The grade of an overall score under the bands of `rules`.
    public init(score: Int, rules: ScoreRules = ScoreRules()) {
        if score >= rules.excellentFrom {
            self = .excellent
        } else if score >= rules.goodFrom {
            self = .good
        } else if score >= rules.fairFrom {
            self = .fair
        } else if score >= rules.poorFrom {
            self = .poor
        } else {
            self = .veryPoor
        }
    }
}
