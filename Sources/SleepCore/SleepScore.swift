/// The 0-100 sleep score of a window's tracked nights (spec section 5, from Somnus;
/// educational, not clinical).
public struct SleepScore: Sendable, Hashable, Codable {
    /// trunc(0.35 D + 0.25 E + 0.20 C + 0.20 S) clamped 0-100; 0 with no tracked night.
    public var overall: Int
    /// Grade of ``overall``.
    public var grade: SleepGrade
    /// The components; absent (not the defaults) when the window has no tracked night.
    public var components: ScoreComponents?
    /// Tracked nights scored.
    public var trackedNights: Int

    /// Creates a score from already computed figures.
    public init(overall: Int, grade: SleepGrade, components: ScoreComponents?, trackedNights: Int) {
        self.overall = overall
        self.grade = grade
        self.components = components
        self.trackedNights = trackedNights
    }

    /// Scores `nights` (all tracked). Bedtimes are read in each night's own zone.
    public init(nights: [Night], rules: ScoreRules = ScoreRules()) {
        self.init(timeline: MetricTimeline(nights).nights[...], rules: rules)
    }

    /// Scores a window of timeline nights; `durationShiftSeconds` is subtracted from the
    /// mean asleep time before the duration component reads it (with the estimated need as
    /// target: the mean need minus 8 h, so the 7/8/9 h references move with the need).
    init(timeline nights: ArraySlice<MetricNight>, rules: ScoreRules, durationShiftSeconds: Double = 0) {
        guard !nights.isEmpty else {
            self.init(overall: 0, grade: .veryPoor, components: nil, trackedNights: 0)
            return
        }
        let count = Double(nights.count)
        var asleep = 0.0
        var efficiency = 0.0
        var bedtimes: [Double] = []
        var stageScores: [Double] = []
        bedtimes.reserveCapacity(nights.count)
        for item in nights {
            asleep += Double(item.asleepSeconds)
            efficiency += item.efficiency
            bedtimes.append(Double(item.bedtimeClockSeconds) / 60)
            if item.hasStageData, item.asleepSeconds > 0 {
                let total = Double(item.asleepSeconds)
                stageScores.append(
                    ScoreComponents.nightStagesScore(
                        deepFraction: Double(item.deepSeconds) / total,
                        remFraction: Double(item.remSeconds) / total, rules: rules))
            }
        }
        let components = ScoreComponents(
            duration: ScoreComponents.duration(
                averageAsleepHours: (asleep / count - durationShiftSeconds) / 3600, rules: rules),
            efficiency: ScoreComponents.efficiency(
                averageEfficiency: efficiency / count, rules: rules),
            consistency: ScoreComponents.consistency(bedtimeMinutes: bedtimes, rules: rules),
            stages: ScoreComponents.stages(nightlyStageScores: stageScores, rules: rules))
        let overall = SleepScore.overall(components, rules: rules)
        self.init(
            overall: overall, grade: SleepGrade(score: overall, rules: rules),
            components: components,
            trackedNights: nights.count)
    }

    /// trunc(0.35 D + 0.25 E + 0.20 C + 0.20 S), clamped 0-100.
    public static func overall(_ c: ScoreComponents, rules: ScoreRules = ScoreRules()) -> Int {
        let sum =
            rules.durationWeight * Double(c.duration) + rules.efficiencyWeight
            * Double(c.efficiency)
            + rules.consistencyWeight * Double(c.consistency) + rules.stagesWeight
            * Double(c.stages)
        return min(100, max(0, SpecArithmetic.truncated(sum)))
    }

    enum CodingKeys: String, CodingKey {
        case overall
        case grade
        case components
        case trackedNights = "tracked_nights"
    }
}
