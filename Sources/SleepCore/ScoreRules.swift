/// Constants of the sleep score (spec section 5, from Somnus): component weights, the
/// fixed 7/8/9 h duration references, the piecewise slopes, and the grade bands.
public struct ScoreRules: Sendable, Hashable, Codable {
    /// Weight of the duration component. Default 0.35.
    public var durationWeight: Double
    /// Weight of the efficiency component. Default 0.25.
    public var efficiencyWeight: Double
    /// Weight of the consistency component. Default 0.20.
    public var consistencyWeight: Double
    /// Weight of the stages component. Default 0.20.
    public var stagesWeight: Double

    /// Lower edge of the duration plateau, hours. Default 7 (fixed, not the user's goal).
    public var durationLowerHours: Double
    /// Ideal duration, hours. Default 8.
    public var durationIdealHours: Double
    /// Upper edge of the duration plateau, hours. Default 9.
    public var durationUpperHours: Double
    /// Points lost per hour away from the ideal inside the plateau. Default 10.
    public var durationPlateauSlope: Double
    /// Score at the lower edge when sleeping less. Default 70.
    public var durationShortBase: Double
    /// Points lost per hour below the lower edge. Default 20.
    public var durationShortSlope: Double
    /// Score at the upper edge when sleeping more. Default 80.
    public var durationLongBase: Double
    /// Points lost per hour above the upper edge. Default 15.
    public var durationLongSlope: Double
    /// Lowest duration score for long sleep. Default 40.
    public var durationLongFloor: Double

    /// Efficiency at or above which the generous branch applies. Default 0.85.
    public var efficiencyThreshold: Double
    /// Bonus points in the generous branch: trunc(e x 100 + bonus). Default 10.
    public var efficiencyBonus: Double
    /// Multiplier in the low branch: trunc(e x multiplier - penalty). Default 120.
    public var efficiencyLowMultiplier: Double
    /// Penalty in the low branch. Default 10.
    public var efficiencyLowPenalty: Double

    /// Bedtime standard deviation, in minutes, that brings consistency to 0. Default 120.
    public var consistencyScaleMinutes: Double
    /// Local clock minute before which a bedtime counts as the next day (+1440). Default
    /// 720 (12:00), so 23:30 and 00:30 are 60 minutes apart.
    public var consistencyDayStartMinute: Double
    /// Consistency with fewer than two nights. Default 70.
    public var consistencyDefault: Int

    /// Ideal deep fraction of asleep time. Default 0.20.
    public var stagesDeepIdeal: Double
    /// Points lost per unit of deep fraction away from the ideal. Default 500.
    public var stagesDeepSlope: Double
    /// Ideal REM fraction of asleep time. Default 0.25.
    public var stagesREMIdeal: Double
    /// Points lost per unit of REM fraction away from the ideal. Default 400.
    public var stagesREMSlope: Double
    /// Stages component with no night with stage data. Default 60.
    public var stagesDefault: Int

    /// Lowest overall score graded Excellent. Default 90.
    public var excellentFrom: Int
    /// Lowest overall score graded Good. Default 75.
    public var goodFrom: Int
    /// Lowest overall score graded Fair. Default 60.
    public var fairFrom: Int
    /// Lowest overall score graded Poor; below is Very Poor. Default 40.
    public var poorFrom: Int

    /// Creates score rules; every parameter defaults to the spec's value.
    public init(
        durationWeight: Double = 0.35, efficiencyWeight: Double = 0.25,
        consistencyWeight: Double = 0.20, stagesWeight: Double = 0.20,
        durationLowerHours: Double = 7, durationIdealHours: Double = 8,
        durationUpperHours: Double = 9, durationPlateauSlope: Double = 10,
        durationShortBase: Double = 70, durationShortSlope: Double = 20,
        durationLongBase: Double = 80, durationLongSlope: Double = 15,
        durationLongFloor: Double = 40,
        efficiencyThreshold: Double = 0.85, efficiencyBonus: Double = 10,
        efficiencyLowMultiplier: Double = 120, efficiencyLowPenalty: Double = 10,
        consistencyScaleMinutes: Double = 120, consistencyDayStartMinute: Double = 720,
        consistencyDefault: Int = 70,
        stagesDeepIdeal: Double = 0.20, stagesDeepSlope: Double = 500,
        stagesREMIdeal: Double = 0.25, stagesREMSlope: Double = 400, stagesDefault: Int = 60,
        excellentFrom: Int = 90, goodFrom: Int = 75, fairFrom: Int = 60, poorFrom: Int = 40
    ) {
        self.durationWeight = durationWeight
        self.efficiencyWeight = efficiencyWeight
        self.consistencyWeight = consistencyWeight
        self.stagesWeight = stagesWeight
        self.durationLowerHours = durationLowerHours
        self.durationIdealHours = durationIdealHours
        self.durationUpperHours = durationUpperHours
        self.durationPlateauSlope = durationPlateauSlope
        self.durationShortBase = durationShortBase
        self.durationShortSlope = durationShortSlope
        self.durationLongBase = durationLongBase
        self.durationLongSlope = durationLongSlope
        self.durationLongFloor = durationLongFloor
        self.efficiencyThreshold = efficiencyThreshold
        self.efficiencyBonus = efficiencyBonus
        self.efficiencyLowMultiplier = efficiencyLowMultiplier
        self.efficiencyLowPenalty = efficiencyLowPenalty
        self.consistencyScaleMinutes = consistencyScaleMinutes
        self.consistencyDayStartMinute = consistencyDayStartMinute
        self.consistencyDefault = consistencyDefault
        self.stagesDeepIdeal = stagesDeepIdeal
        self.stagesDeepSlope = stagesDeepSlope
        self.stagesREMIdeal = stagesREMIdeal
        self.stagesREMSlope = stagesREMSlope
        self.stagesDefault = stagesDefault
        self.excellentFrom = excellentFrom
        self.goodFrom = goodFrom
        self.fairFrom = fairFrom
        self.poorFrom = poorFrom
    }
}
