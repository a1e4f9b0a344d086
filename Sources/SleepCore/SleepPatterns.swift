/// The triggered sleep patterns of a window (spec section 7, from Somnus). Reported only
/// when the window holds at least 5 tracked nights; each member is present only when its
/// pattern is triggered, with the figures that triggered it.
public struct SleepPatterns: Sendable, Hashable, Codable {
    /// Weekend nights sleep much longer than the other nights.
    public struct SocialJetLag: Sendable, Hashable, Codable {
        /// Mean asleep hours of nights waking on Saturday or Sunday.
        public var weekendAverageHours: Double
        /// Mean asleep hours of the other nights.
        public var workdayAverageHours: Double
        /// Weekend minus workday mean, hours (more than 1.5 h when triggered).
        public var differenceHours: Double
        /// Nights waking on Saturday or Sunday.
        public var weekendNights: Int
        /// The other nights.
        public var workdayNights: Int

        /// Creates the finding.
        public init(
            weekendAverageHours: Double, workdayAverageHours: Double, differenceHours: Double,
            weekendNights: Int, workdayNights: Int
        ) {
            self.weekendAverageHours = weekendAverageHours
            self.workdayAverageHours = workdayAverageHours
            self.differenceHours = differenceHours
            self.weekendNights = weekendNights
            self.workdayNights = workdayNights
        }

        enum CodingKeys: String, CodingKey {
            case weekendAverageHours = "weekend_average_hours"
            case workdayAverageHours = "workday_average_hours"
            case differenceHours = "difference_hours"
            case weekendNights = "weekend_nights"
            case workdayNights = "workday_nights"
        }
    }

    /// Many bedtimes between 00:00 and 04:59 local time.
    public struct LateBedtimes: Sendable, Hashable, Codable {
        /// Nights with a late local bedtime.
        public var lateNights: Int
        /// Tracked nights (n).
        public var trackedNights: Int
        /// floor(n / 3): triggered when ``lateNights`` is more than this.
        public var threshold: Int

        /// Creates the finding.
        public init(lateNights: Int, trackedNights: Int, threshold: Int) {
            self.lateNights = lateNights
            self.trackedNights = trackedNights
            self.threshold = threshold
        }

        enum CodingKeys: String, CodingKey {
            case lateNights = "late_nights"
            case trackedNights = "tracked_nights"
            case threshold
        }
    }

    /// A stage's mean share of asleep time is below its threshold.
    public struct LowStage: Sendable, Hashable, Codable {
        /// Mean fraction of asleep time in the stage over nights with stage data.
        public var meanFraction: Double
        /// The threshold it is below (0.10 deep, 0.15 REM).
        public var threshold: Double
        /// Nights with stage data averaged.
        public var stagedNights: Int

        /// Creates the finding.
        public init(meanFraction: Double, threshold: Double, stagedNights: Int) {
            self.meanFraction = meanFraction
            self.threshold = threshold
            self.stagedNights = stagedNights
        }

        enum CodingKeys: String, CodingKey {
            case meanFraction = "mean_fraction"
            case threshold
            case stagedNights = "staged_nights"
        }
    }

    /// Tracked nights examined.
    public var trackedNights: Int
    /// Present when weekend sleep exceeds workday sleep by more than 1.5 h.
    public var socialJetLag: SocialJetLag?
    /// Present when more than floor(n / 3) bedtimes fall in 00:00-04:59.
    public var lateBedtimes: LateBedtimes?
    /// Present when mean deep share is below 10%.
    public var lowDeepSleep: LowStage?
    /// Present when mean REM share is below 15%.
    public var lowREM: LowStage?

    /// Creates patterns from findings.
    public init(
        trackedNights: Int, socialJetLag: SocialJetLag? = nil, lateBedtimes: LateBedtimes? = nil,
        lowDeepSleep: LowStage? = nil, lowREM: LowStage? = nil
    ) {
        self.trackedNights = trackedNights
        self.socialJetLag = socialJetLag
        self.lateBedtimes = lateBedtimes
        self.lowDeepSleep = lowDeepSleep
        self.lowREM = lowREM
    }

    /// Whether any pattern is triggered.
    public var isEmpty: Bool {
        socialJetLag == nil && lateBedtimes == nil && lowDeepSleep == nil && lowREM == nil
    }

    /// Examines `nights` (all tracked); `nil` with fewer than the minimum (default 5).
    /// Local bedtimes are read in each night's own zone.
    public init?(nights: [Night], rules: MetricRules = .standard) {
        self.init(timeline: MetricTimeline(nights).nights[...], rules: rules)
    }

    init?(timeline nights: ArraySlice<MetricNight>, rules: MetricRules) {
        let n = nights.count
        guard n >= rules.patternMinimumTrackedNights, n > 0 else { return nil }
        self.init(trackedNights: n)

        var weekend: (seconds: Int64, count: Int) = (0, 0)
        var workday: (seconds: Int64, count: Int) = (0, 0)
        var late = 0
        var deep = 0.0
        var rem = 0.0
        var staged = 0
        for item in nights {
            if item.isFreeDay {
                weekend = (weekend.seconds + item.asleepSeconds, weekend.count + 1)
            } else {
                workday = (workday.seconds + item.asleepSeconds, workday.count + 1)
            }
            let hour = Int(item.bedtimeClockSeconds / 3600)
            if hour >= rules.lateBedtimeFromHour, hour < rules.lateBedtimeUntilHour { late += 1 }
            if item.hasStageData, item.asleepSeconds > 0 {
                deep += Double(item.deepSeconds) / Double(item.asleepSeconds)
                rem += Double(item.remSeconds) / Double(item.asleepSeconds)
                staged += 1
            }
        }
        if weekend.count > 0, workday.count > 0 {
            let weekendHours = Double(weekend.seconds) / Double(weekend.count) / 3600
            let workdayHours = Double(workday.seconds) / Double(workday.count) / 3600
            let difference = weekendHours - workdayHours
            if SpecArithmetic.rounded(difference) > SpecArithmetic.rounded(rules.socialJetLagHours) {
                socialJetLag = SocialJetLag(
                    weekendAverageHours: weekendHours, workdayAverageHours: workdayHours,
                    differenceHours: difference, weekendNights: weekend.count,
                    workdayNights: workday.count)
            }
        }
        let threshold = n / max(1, rules.lateBedtimeNightDivisor)
        if late > threshold {
            lateBedtimes = LateBedtimes(lateNights: late, trackedNights: n, threshold: threshold)
        }
        if staged > 0 {
            let meanDeep = deep / Double(staged)
            let meanREM = rem / Double(staged)
            if SpecArithmetic.rounded(meanDeep) < SpecArithmetic.rounded(rules.lowDeepFraction) {
                lowDeepSleep = LowStage(
                    meanFraction: meanDeep, threshold: rules.lowDeepFraction, stagedNights: staged)
            }
            if SpecArithmetic.rounded(meanREM) < SpecArithmetic.rounded(rules.lowREMFraction) {
                lowREM = LowStage(
                    meanFraction: meanREM, threshold: rules.lowREMFraction, stagedNights: staged)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case trackedNights = "tracked_nights"
        case socialJetLag = "social_jet_lag"
        case lateBedtimes = "late_bedtimes"
        case lowDeepSleep = "low_deep_sleep"
        case lowREM = "low_rem"
    }
}
