/// The sleep values Health Auto Export writes in a `sleep_analysis` entry's `value`, and
/// the HealthKit values (as Apple's export writes them) they stand for.
enum HealthAutoExportValue {
    /// The app's labels, compared without case, spaces, `-` and `_`, to the HealthKit
    /// value's name without its `HKCategoryValueSleepAnalysis` prefix.
    static let healthKitNames: [String: String] = [
        "inbed": "InBed",
        "asleep": "Asleep",
        "unspecified": "AsleepUnspecified",
        "asleepunspecified": "AsleepUnspecified",
        "core": "AsleepCore",
        "asleepcore": "AsleepCore",
        "deep": "AsleepDeep",
        "asleepdeep": "AsleepDeep",
        "rem": "AsleepREM",
        "asleeprem": "AsleepREM",
        "awake": "Awake",
    ]

    /// The HealthKit value for an app label (`In Bed` → `HKCategoryValueSleepAnalysisInBed`,
    /// `Core` → `...AsleepCore`, `Unspecified` → `...AsleepUnspecified`); any other text is
    /// returned unchanged, so a full HealthKit value still reads and an unknown one is
    /// quoted as written in its diagnostic.
    static func healthKitValue(for label: String) -> String {
        // The app's own labels, as it writes them.
        switch label {
        case "Core": return "HKCategoryValueSleepAnalysisAsleepCore"
        case "Deep": return "HKCategoryValueSleepAnalysisAsleepDeep"
        case "REM": return "HKCategoryValueSleepAnalysisAsleepREM"
        case "Awake": return "HKCategoryValueSleepAnalysisAwake"
        case "In Bed": return "HKCategoryValueSleepAnalysisInBed"
        case "Asleep": return "HKCategoryValueSleepAnalysisAsleep"
        case "Unspecified": return "HKCategoryValueSleepAnalysisAsleepUnspecified"
        default: break
        }
        guard label.utf8.count <= 32 else { return label }
        let key = String(label.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" })
        guard let name = healthKitNames[key] else { return label }
        return "HKCategoryValueSleepAnalysis" + name
    }
}
