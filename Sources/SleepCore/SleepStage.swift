/// The stage of one Apple Health sleep-analysis sample (spec section 1).
///
/// `Asleep` (before iOS 16) and `AsleepUnspecified` are the same stored value printed by
/// different iOS versions; both map to ``asleepUnspecified``.
public enum SleepStage: String, Sendable, Hashable, Codable, CaseIterable {
    /// In bed, not necessarily asleep. Not sleep.
    case inBed
    /// Asleep with no stage information (legacy `Asleep` and `AsleepUnspecified`).
    case asleepUnspecified
    /// Core (light) sleep.
    case core
    /// Deep (slow-wave) sleep.
    case deep
    /// REM sleep.
    case rem
    /// Awake. Not sleep.
    case awake

    /// Whether the stage counts as sleep: core, deep, rem or unspecified.
    public var isAsleep: Bool {
        switch self {
        case .asleepUnspecified, .core, .deep, .rem: return true
        case .inBed, .awake: return false
        }
    }

    /// Whether the stage is one of the staged sleep values (core, deep, rem).
    public var isStaged: Bool {
        switch self {
        case .core, .deep, .rem: return true
        default: return false
        }
    }

    /// The export's `value` attribute of the stage (`HKCategoryValueSleepAnalysisAsleepCore`
    /// for ``core``): what ``init(healthKitValue:)`` reads back as the same stage.
    public var healthKitValue: String {
        switch self {
        case .inBed: "HKCategoryValueSleepAnalysisInBed"
        case .asleepUnspecified: "HKCategoryValueSleepAnalysisAsleepUnspecified"
        case .core: "HKCategoryValueSleepAnalysisAsleepCore"
        case .deep: "HKCategoryValueSleepAnalysisAsleepDeep"
        case .rem: "HKCategoryValueSleepAnalysisAsleepREM"
        case .awake: "HKCategoryValueSleepAnalysisAwake"
        }
    }

    /// Maps an export's `value` attribute (`HKCategoryValueSleepAnalysis...`) to a stage,
    /// or `nil` when the value is unknown.
    public init?(healthKitValue: String) {
        switch healthKitValue {
        case "HKCategoryValueSleepAnalysisInBed": self = .inBed
        case "HKCategoryValueSleepAnalysisAsleep", "HKCategoryValueSleepAnalysisAsleepUnspecified":
            self = .asleepUnspecified
        case "HKCategoryValueSleepAnalysisAsleepCore": self = .core
        case "HKCategoryValueSleepAnalysisAsleepDeep": self = .deep
        case "HKCategoryValueSleepAnalysisAsleepREM": self = .rem
        case "HKCategoryValueSleepAnalysisAwake": self = .awake
        default: return nil
        }
    }
}
