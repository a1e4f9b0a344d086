/// Every constant of spec sections 4-7 (debt, rolling debt, recovery, score, summaries,
/// patterns) as one immutable setting. The defaults are the spec's; change them only for
/// experiments, never to make a test pass.
public struct MetricRules: Sendable, Hashable, Codable {
    /// Debt above this many seconds is "concerning" (strictly above). Default 2 h (Somnus).
    public var concerningDebtSeconds: Int64
    /// Debt above this many seconds is "critical" (strictly above). Default 5 h (Somnus).
    public var criticalDebtSeconds: Int64

    /// Length of the rolling debt window in wake days, ending on the as-of day. Default 14.
    public var rollingWindowNights: Int
    /// Geometric decay per day back from the as-of day for the rolling debt weights.
    /// Default 0.872, so that last night weighs 0.15 when all 14 nights are tracked.
    public var rollingDecay: Double
    /// Tracked nights the rolling window needs before rolling debt (and recovery) is shown.
    /// Default 5.
    public var rollingMinimumTrackedNights: Int

    /// Recovery goal: the projection counts nights until rolling debt is strictly below
    /// this many seconds. Default 2 h.
    public var recoveryGoalSeconds: Int64
    /// Extra sleep above Target Sleep per simulated night, one recovery plan per entry, in
    /// seconds. Default +30, +60 and +90 minutes.
    public var recoveryPlanExtraSeconds: [Int64]
    /// The projection stops after this many simulated nights and reports "more than" it.
    /// Default 30.
    public var recoveryNightCap: Int

    /// Score constants and grade bands (spec section 5).
    public var score: ScoreRules

    /// Minimum nights for a trend. Default 3.
    public var trendMinimumNights: Int
    /// A trend whose later-minus-earlier difference is below this many hours (in absolute
    /// value) is "stable". Default 0.1 h.
    public var trendStableHours: Double

    /// Tracked nights a window needs before any pattern of section 7 is reported. Default 5.
    public var patternMinimumTrackedNights: Int
    /// Social jet lag: weekend average asleep hours minus the other nights' average must be
    /// more than this. Default 1.5 h (Somnus).
    public var socialJetLagHours: Double
    /// Late bedtime: local bedtime hour at or after this hour (inclusive). Default 0 (00:00).
    public var lateBedtimeFromHour: Int
    /// Late bedtime: local bedtime hour before this hour (exclusive). Default 5, so
    /// 00:00-04:59 is late.
    public var lateBedtimeUntilHour: Int
    /// Late bedtimes trigger on more than floor(n / this) nights. Default 3 (a third).
    public var lateBedtimeNightDivisor: Int
    /// Low deep sleep: mean deep fraction over nights with stage data below this. Default
    /// 0.10 (normal 0.15-0.25).
    public var lowDeepFraction: Double
    /// Low REM: mean REM fraction over nights with stage data below this. Default 0.15
    /// (normal 0.20-0.25).
    public var lowREMFraction: Double

    /// Creates rules; every parameter defaults to the spec's value.
    public init(
        concerningDebtSeconds: Int64 = 2 * 3600,
        criticalDebtSeconds: Int64 = 5 * 3600,
        rollingWindowNights: Int = 14,
        rollingDecay: Double = 0.872,
        rollingMinimumTrackedNights: Int = 5,
        recoveryGoalSeconds: Int64 = 2 * 3600,
        recoveryPlanExtraSeconds: [Int64] = [30 * 60, 60 * 60, 90 * 60],
        recoveryNightCap: Int = 30,
        score: ScoreRules = ScoreRules(),
        trendMinimumNights: Int = 3,
        trendStableHours: Double = 0.1,
        patternMinimumTrackedNights: Int = 5,
        socialJetLagHours: Double = 1.5,
        lateBedtimeFromHour: Int = 0,
        lateBedtimeUntilHour: Int = 5,
        lateBedtimeNightDivisor: Int = 3,
        lowDeepFraction: Double = 0.10,
        lowREMFraction: Double = 0.15
    ) {
        self.concerningDebtSeconds = concerningDebtSeconds
        self.criticalDebtSeconds = criticalDebtSeconds
        self.rollingWindowNights = rollingWindowNights
        self.rollingDecay = rollingDecay
        self.rollingMinimumTrackedNights = rollingMinimumTrackedNights
        self.recoveryGoalSeconds = recoveryGoalSeconds
        self.recoveryPlanExtraSeconds = recoveryPlanExtraSeconds
        self.recoveryNightCap = recoveryNightCap
        self.score = score
        self.trendMinimumNights = trendMinimumNights
        self.trendStableHours = trendStableHours
        self.patternMinimumTrackedNights = patternMinimumTrackedNights
        self.socialJetLagHours = socialJetLagHours
        self.lateBedtimeFromHour = lateBedtimeFromHour
        self.lateBedtimeUntilHour = lateBedtimeUntilHour
        self.lateBedtimeNightDivisor = lateBedtimeNightDivisor
        self.lowDeepFraction = lowDeepFraction
        self.lowREMFraction = lowREMFraction
    }

    /// The spec's defaults.
    public static let standard = MetricRules()

    /// Settings that make no sense, one readable line each; empty when the rules are usable.
    /// Callers that build rules from configuration should refuse to run on any problem.
    public var problems: [String] {
        var found: [String] = []
        if concerningDebtSeconds < 0 || criticalDebtSeconds < concerningDebtSeconds {
            found.append("debt thresholds must satisfy 0 <= concerning <= critical")
        }
        if rollingWindowNights < 1 { found.append("rollingWindowNights must be at least 1") }
        if !(rollingDecay > 0 && rollingDecay <= 1) {
            found.append("rollingDecay must be in (0, 1]")
        }
        if rollingMinimumTrackedNights < 1 || rollingMinimumTrackedNights > rollingWindowNights {
            found.append("rollingMinimumTrackedNights must be in 1...rollingWindowNights")
        }
        if recoveryNightCap < 0 { found.append("recoveryNightCap must not be negative") }
        if !(trendStableHours >= 0) { found.append("trendStableHours must not be negative") }
        if trendMinimumNights < 2 { found.append("trendMinimumNights must be at least 2") }
        if lateBedtimeNightDivisor < 1 {
            found.append("lateBedtimeNightDivisor must be at least 1")
        }
        if !(0...24).contains(lateBedtimeFromHour) || !(0...24).contains(lateBedtimeUntilHour) {
            found.append("late bedtime hours must be in 0...24")
        }
        let weights = [
            score.durationWeight, score.efficiencyWeight, score.consistencyWeight,
            score.stagesWeight,
        ]
        if weights.contains(where: { !($0 >= 0) }) {
            found.append("score weights must not be negative")
        }
        if !(score.consistencyScaleMinutes > 0) {
            found.append("consistencyScaleMinutes must be positive")
        }
        if !(score.excellentFrom >= score.goodFrom && score.goodFrom >= score.fairFrom
            && score.fairFrom >= score.poorFrom)
        {
            found.append("grade bands must not increase from Excellent down to Poor")
        }
        return found
    }
}
