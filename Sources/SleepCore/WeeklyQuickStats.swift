/// Quick statistics of the last 7 days (spec section 6), whatever the horizon.
public struct WeeklyQuickStats: Sendable, Hashable, Codable {
    /// The 7 wake days ending on the as-of day.
    public var window: WakeDayRange
    /// Tracked nights (Y).
    public var trackedNights: Int
    /// Tracked nights with asleep >= Minimum Acceptable (X).
    public var compliantNights: Int
    /// "X/Y nights", e.g. "5/6 nights".
    public var complianceText: String
    /// X / Y; absent with no tracked night.
    public var complianceRate: Double?
    /// Mean asleep seconds rounded to a whole second; absent with no tracked night.
    public var averageAsleepSeconds: Int64?
    /// Mean asleep hours (unrounded seconds / 3600); absent with no tracked night.
    public var averageAsleepHours: Double?
    /// Mean nightly efficiency (0-1); absent with no tracked night.
    public var averageEfficiency: Double?

    /// Creates stats from already computed figures.
    public init(
        window: WakeDayRange, trackedNights: Int, compliantNights: Int, complianceText: String,
        complianceRate: Double?, averageAsleepSeconds: Int64?, averageAsleepHours: Double?,
        averageEfficiency: Double?
    ) {
        self.window = window
        self.trackedNights = trackedNights
        self.compliantNights = compliantNights
        self.complianceText = complianceText
        self.complianceRate = complianceRate
        self.averageAsleepSeconds = averageAsleepSeconds
        self.averageAsleepHours = averageAsleepHours
        self.averageEfficiency = averageEfficiency
    }

    /// Computes the stats of the nights waking in the 7 days ending on `asOf` (others in
    /// `nights` are ignored).
    public init(nights: some Sequence<Night>, goals: SleepGoals, asOf: LocalDate) {
        let window = Horizon.weekly.window(asOf: asOf)
        let inWindow = nights.filter { window.contains($0.wakeDay) }
        self.init(
            window: window, asleepSeconds: inWindow.map(\.asleepSeconds),
            efficiencies: inWindow.map(\.efficiency),
            goals: goals)
    }

    init(window: WakeDayRange, asleepSeconds: [Int64], efficiencies: [Double], goals: SleepGoals) {
        let count = asleepSeconds.count
        let minimumHours = SpecArithmetic.hours(Double(goals.minimumSeconds))
        let compliant = asleepSeconds.filter { SpecArithmetic.hours(Double($0)) >= minimumHours }
            .count
        let asleep = asleepSeconds.reduce(Int64(0), +)
        let efficiency = efficiencies.reduce(0.0, +)
        self.init(
            window: window, trackedNights: count, compliantNights: compliant,
            complianceText: "\(compliant)/\(count) nights",
            complianceRate: count == 0 ? nil : Double(compliant) / Double(count),
            averageAsleepSeconds: count == 0 ? nil : DebtTotals.roundedAverage(asleep, count),
            averageAsleepHours: count == 0 ? nil : Double(asleep) / Double(count) / 3600,
            averageEfficiency: count == 0 ? nil : efficiency / Double(count))
    }

    enum CodingKeys: String, CodingKey {
        case window
        case trackedNights = "tracked_nights"
        case compliantNights = "compliant_nights"
        case complianceText = "compliance"
        case complianceRate = "compliance_rate"
        case averageAsleepSeconds = "average_asleep_seconds"
        case averageAsleepHours = "average_asleep_hours"
        case averageEfficiency = "average_efficiency"
    }
}
