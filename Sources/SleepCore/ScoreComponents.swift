/// The four 0-100 components of a sleep score (spec section 5), with the piecewise
/// functions that produce them. Every truncation first rounds to 9 decimals (section 0).
public struct ScoreComponents: Sendable, Hashable, Codable {
    /// Duration component (weight 35%).
    public var duration: Int
    /// Efficiency component (weight 25%).
    public var efficiency: Int
    /// Bedtime consistency component (weight 20%).
    public var consistency: Int
    /// Stages component (weight 20%).
    public var stages: Int

    /// Creates components.
    public init(duration: Int, efficiency: Int, consistency: Int, stages: Int) {
        self.duration = duration
        self.efficiency = efficiency
        self.consistency = consistency
        self.stages = stages
    }

    /// Duration from the average asleep hours `a`: 7 <= a <= 9: trunc(100 - |a - 8| x 10);
    /// a < 7: max(0, trunc(70 - (7 - a) x 20)); a > 9: max(40, trunc(80 - (a - 9) x 15)).
    public static func duration(averageAsleepHours hours: Double, rules: ScoreRules = ScoreRules())
        -> Int
    {
        let a = SpecArithmetic.rounded(hours)
        let value: Int
        if a < rules.durationLowerHours {
            value = max(
                0,
                SpecArithmetic.truncated(
                    rules.durationShortBase - (rules.durationLowerHours - a)
                        * rules.durationShortSlope))
        } else if a > rules.durationUpperHours {
            value = max(
                SpecArithmetic.truncated(rules.durationLongFloor),
                SpecArithmetic.truncated(
                    rules.durationLongBase - (a - rules.durationUpperHours)
                        * rules.durationLongSlope))
        } else {
            value = SpecArithmetic.truncated(
                100 - abs(a - rules.durationIdealHours) * rules.durationPlateauSlope)
        }
        return min(100, max(0, value))
    }

    /// Efficiency from the mean nightly efficiency `e` (0-1): e >= 0.85:
    /// min(100, trunc(e x 100 + 10)); else max(0, trunc(e x 120 - 10)).
    public static func efficiency(averageEfficiency: Double, rules: ScoreRules = ScoreRules())
        -> Int
    {
        let e = SpecArithmetic.rounded(averageEfficiency)
        if e >= rules.efficiencyThreshold {
            return max(0, min(100, SpecArithmetic.truncated(e * 100 + rules.efficiencyBonus)))
        }
        return min(
            100,
            max(
                0,
                SpecArithmetic.truncated(
                    e * rules.efficiencyLowMultiplier - rules.efficiencyLowPenalty)))
    }

    /// Consistency from the population standard deviation of bedtimes in minutes:
    /// max(0, trunc(100 - s / 120 x 100)).
    public static func consistency(
        bedtimeStandardDeviationMinutes s: Double, rules: ScoreRules = ScoreRules()
    ) -> Int {
        min(100, max(0, SpecArithmetic.truncated(100 - s / rules.consistencyScaleMinutes * 100)))
    }

    /// Consistency from local bedtimes given as minutes after midnight (0..<1440): times
    /// before 12:00 get +1440, then the population standard deviation is scored. Fewer
    /// than two bedtimes: 70.
    public static func consistency(bedtimeMinutes: [Double], rules: ScoreRules = ScoreRules())
        -> Int
    {
        guard bedtimeMinutes.count >= 2 else { return rules.consistencyDefault }
        let shifted = bedtimeMinutes.map { $0 < rules.consistencyDayStartMinute ? $0 + 1440 : $0 }
        let mean = shifted.reduce(0, +) / Double(shifted.count)
        let variance = shifted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(shifted.count)
        return consistency(bedtimeStandardDeviationMinutes: variance.squareRoot(), rules: rules)
    }

    /// Stages score of one night from its deep and REM fractions of asleep time:
    /// ((100 - min(100, |deep - 0.20| x 500)) + (100 - min(100, |rem - 0.25| x 400))) / 2.
    public static func nightStagesScore(
        deepFraction: Double, remFraction: Double, rules: ScoreRules = ScoreRules()
    ) -> Double {
        let deepScore =
            100 - min(100, abs(deepFraction - rules.stagesDeepIdeal) * rules.stagesDeepSlope)
        let remScore =
            100 - min(100, abs(remFraction - rules.stagesREMIdeal) * rules.stagesREMSlope)
        return (deepScore + remScore) / 2
    }

    /// Stages component: trunc(mean of the nightly stage scores) clamped 0-100; 60 when
    /// no night has stage data (empty input).
    public static func stages(nightlyStageScores scores: [Double], rules: ScoreRules = ScoreRules())
        -> Int
    {
        guard !scores.isEmpty else { return rules.stagesDefault }
        let mean = scores.reduce(0, +) / Double(scores.count)
        return min(100, max(0, SpecArithmetic.truncated(mean)))
    }

    enum CodingKeys: String, CodingKey {
        case duration
        case efficiency
        case consistency
        case stages
    }
}
