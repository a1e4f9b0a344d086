/// The constants of spec section 3 ("from samples to nights"), each a setting with the
/// spec's default. All durations are in seconds.
public struct NightRules: Sendable, Hashable, Codable {
    /// Rule 1 (Onset): within one source, an asleep sample joins the current cluster when
    /// it starts at most this long after the cluster's latest end so far (running
    /// maximum). Default 90 minutes.
    public var clusterJoinGapSeconds: Int64
    /// Rule 2 (amendment A1, fragments): consecutive clusters of one source at most this
    /// far apart (one's latest end to the next one's start) are chained into one night
    /// candidate; the gap counts as in bed and awake. Default 3 hours.
    public var fragmentChainGapSeconds: Int64
    /// Rule 3 (Onset): a candidate is a main sleep only with at least this much sleep;
    /// otherwise its clusters are naps. Default 3 hours.
    public var mainSleepMinimumSeconds: Int64
    /// Rule 5 (Onset): a not-asleep stretch inside a night counts as a wake-up only when
    /// it lasts at least this long (shorter ones still count as awake time). Default 2 minutes.
    public var wakeUpMinimumSeconds: Int64
    /// Rule 6 (Onset): an in-bed sample of any source counts for latency only when it
    /// starts at most this long before sleep onset (exactly this long counts) and not
    /// after onset. Default 3 hours.
    public var inBedLookbackSeconds: Int64

    /// Creates rules; every default is the spec's.
    public init(
        clusterJoinGapSeconds: Int64 = 90 * 60,
        fragmentChainGapSeconds: Int64 = 3 * 3600,
        mainSleepMinimumSeconds: Int64 = 3 * 3600,
        wakeUpMinimumSeconds: Int64 = 2 * 60,
        inBedLookbackSeconds: Int64 = 3 * 3600
    ) {
        self.clusterJoinGapSeconds = clusterJoinGapSeconds
        self.fragmentChainGapSeconds = fragmentChainGapSeconds
        self.mainSleepMinimumSeconds = mainSleepMinimumSeconds
        self.wakeUpMinimumSeconds = wakeUpMinimumSeconds
        self.inBedLookbackSeconds = inBedLookbackSeconds
    }

    /// The spec's defaults.
    public static let standard = NightRules()

    /// The rules with every value clamped to 0 ... 2^40 seconds, as the builder uses them
    /// (a negative or astronomically large setting cannot make it overflow).
    public var clamped: NightRules {
        func clamp(_ value: Int64) -> Int64 { min(max(value, 0), 1 << 40) }
        return NightRules(
            clusterJoinGapSeconds: clamp(clusterJoinGapSeconds),
            fragmentChainGapSeconds: clamp(fragmentChainGapSeconds),
            mainSleepMinimumSeconds: clamp(mainSleepMinimumSeconds),
            wakeUpMinimumSeconds: clamp(wakeUpMinimumSeconds),
            inBedLookbackSeconds: clamp(inBedLookbackSeconds))
    }
}
