/// A user's sleep goals (spec section 4): Target Sleep drives debt, Minimum Acceptable
/// drives compliance and the lower edge of chart goal bands; and the per-person settings
/// of issue 24 that shape them: the work days and what the target is.
public struct SleepGoals: Sendable, Hashable, Codable {
    /// Target sleep per night in seconds. Default 8 h.
    public var targetSeconds: Int64
    /// Minimum acceptable sleep per night in seconds. Default 7 h.
    public var minimumSeconds: Int64
    /// The days the person works; free days are the others. Default Monday to Friday.
    public var workDays: WorkDays
    /// What debt is measured against: the fixed target (default) or the estimated need.
    public var target: SleepTarget

    /// Creates goals; defaults are the spec's 8 h target and 7 h minimum, work days Monday
    /// to Friday and the fixed target, under which every figure is the spec's.
    public init(
        targetSeconds: Int64 = 8 * 3600, minimumSeconds: Int64 = 7 * 3600, workDays: WorkDays = .mondayToFriday,
        target: SleepTarget = .fixed
    ) {
        self.targetSeconds = targetSeconds
        self.minimumSeconds = minimumSeconds
        self.workDays = workDays
        self.target = target
    }
}

/// What a person's debt is measured against (issue 24, a per-person setting).
public enum SleepTarget: String, Sendable, Hashable, Codable, CaseIterable {
    /// The Target Sleep the person set (the default).
    case fixed
    /// The need estimated from the person's own nights (``SleepNeedEstimate``): each night
    /// against the need estimated from the nights before it.
    case estimatedNeed = "estimated_need"
}
