/// Every constant of the personal measures of issue 24 (docs/sleep-rules.md, "Own sleep
/// need, chronotype, sleep pressure and night confidence"): the need estimate, chronotype,
/// the sleep-pressure curve and night confidence. ``standard`` holds the documented
/// defaults.
public struct PersonalSleepRules: Sendable, Hashable {
    /// The version of these rules; the rollup stores it (`rollup_state.rules_version`) and
    /// rebuilds a person fully when a build carries a newer one.
    public static let version = 1

    // MARK: Free nights

    /// A work-day night is free when it wakes at least this much later than the work-day
    /// median wake: 45 min.
    public var lateWakeSeconds: Int64 = 45 * 60

    // MARK: Need

    /// Wake days the need estimate reads, ending on the as-of day: 90.
    public var needWindowDays = 90
    /// The prior need: 8.16 h (Van Dongen et al. 2003).
    public var priorNeedSeconds: Double = 8.16 * 3600
    /// The population's spread of need around the prior: 1 h.
    public var priorSpreadSeconds: Double = 3600
    /// Floor on the nightly noise of a data estimate: 30 min.
    public var nightNoiseFloorSeconds: Double = 1800
    /// Catch-up allowance added in quadrature to the free-nights interval: 30 min.
    public var catchUpAllowanceSeconds: Double = 1800
    /// Kitamura's time constant for a recovery run, in nights: 2.
    public var recoveryTauDays: Double = 2
    /// Shortest recovery run fitted: 3 consecutive free nights.
    public var minimumRunNights = 3
    /// Fewest free nights for the free-nights estimate: 4.
    public var minimumFreeNights = 4
    /// Share of free nights trimmed at each end: 10 %.
    public var trimmedShare: Double = 0.10
    /// The range the estimate and its interval are clamped to: 5 h ... 11 h.
    public var needRange: ClosedRange<Int64> = 5 * 3600...11 * 3600

    // MARK: Chronotype

    /// Wake days chronotype reads, ending on the as-of day: 42.
    public var chronotypeWindowDays = 42
    /// Fewest free nights for MSFsc: 4.
    public var minimumChronotypeFreeNights = 4
    /// Fewest work nights for MSFsc: 10.
    public var minimumChronotypeWorkNights = 10
    /// Free-night wakes this close to work-night wakes are alarm-driven: 15 min.
    public var alarmWakeToleranceSeconds: Double = 15 * 60

    // MARK: Pressure

    /// Process S's time constant while awake: 18.2 h.
    public var wakeRiseSeconds: Double = 18.2 * 3600
    /// Process S's time constant while asleep: 4.2 h.
    public var sleepDecaySeconds: Double = 4.2 * 3600
    /// Process S's value at the start of the history read: 0.5.
    public var pressureStartValue: Double = 0.5
    /// History read before the day's midnight: 72 h.
    public var pressureHistorySeconds: Int64 = 72 * 3600
    /// Amplitude of the 24-hour sinusoid of process C: 0.1 (a display choice).
    public var circadianAmplitude: Double = 0.1
    /// Spacing of the curve's points: 15 min.
    public var pressureStepSeconds: Int64 = 15 * 60
    /// Length of the evening window: 1 h.
    public var eveningWindowSeconds: Int64 = 3600

    // MARK: Confidence

    /// Kind factor of a night without stage data: 0.8.
    public var unstagedFactor: Double = 0.8
    /// Kind factor of a night from a summary-only import: 0.6 (none is built today).
    public var summaryOnlyFactor: Double = 0.6
    /// Other sources' asleep time may differ from the night's by this much: 60 min.
    public var agreementToleranceSeconds: Int64 = 3600
    /// Factor when the sources disagree: 0.85.
    public var disagreementFactor: Double = 0.85
    /// An in-bed sample ending this long after a staged night's wake marks it truncated: 90 min.
    public var truncationInBedSeconds: Int64 = 90 * 60
    /// Factor of a truncated night: 0.6.
    public var truncationFactor: Double = 0.6
    /// Fragmentation: awake share where the penalty starts (0.10), its width (0.20) and depth (0.3).
    public var fragmentationStart: Double = 0.10
    /// Width of the fragmentation ramp.
    public var fragmentationWidth: Double = 0.20
    /// Largest fragmentation penalty.
    public var fragmentationDepth: Double = 0.3
    /// Aggregates of fewer nights carry the small-sample flag: 7.
    public var smallSampleNights = 7

    /// The documented defaults.
    public static let standard = PersonalSleepRules()

    /// Creates the defaults; change fields on the value.
    public init() {}
}
