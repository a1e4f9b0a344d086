/// Shares of a night's (asleep + awake) time per stage (spec section 6); they sum to 1
/// up to floating-point rounding.
public struct StageProportions: Sendable, Hashable, Codable {
    /// Deep sleep share.
    public var deep: Double
    /// REM share.
    public var rem: Double
    /// Core sleep share.
    public var core: Double
    /// Awake share (awake samples and gaps between onset and wake).
    public var awake: Double
    /// Unspecified sleep share.
    public var unspecified: Double

    /// Creates proportions.
    public init(deep: Double, rem: Double, core: Double, awake: Double, unspecified: Double) {
        self.deep = deep
        self.rem = rem
        self.core = core
        self.awake = awake
        self.unspecified = unspecified
    }

    /// The proportions of `night`; all zero if it has neither asleep nor awake time.
    public init(night: Night) {
        let total = Double(night.stages.total + max(0, night.awakeSeconds))
        guard total > 0 else {
            self.init(deep: 0, rem: 0, core: 0, awake: 0, unspecified: 0)
            return
        }
        self.init(
            deep: Double(night.stages.deep) / total, rem: Double(night.stages.rem) / total,
            core: Double(night.stages.core) / total,
            awake: Double(max(0, night.awakeSeconds)) / total,
            unspecified: Double(night.stages.unspecified) / total)
    }

    enum CodingKeys: String, CodingKey {
        case deep
        case rem
        case core
        case awake
        case unspecified
    }
}
