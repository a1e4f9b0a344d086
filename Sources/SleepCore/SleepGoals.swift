/// A user's sleep goals (spec section 4): Target Sleep drives debt, Minimum Acceptable
/// drives compliance and the lower edge of chart goal bands.
public struct SleepGoals: Sendable, Hashable, Codable {
    /// Target sleep per night in seconds. Default 8 h.
    public var targetSeconds: Int64
    /// Minimum acceptable sleep per night in seconds. Default 7 h.
    public var minimumSeconds: Int64

    /// Creates goals; defaults are the spec's 8 h target and 7 h minimum.
    public init(targetSeconds: Int64 = 8 * 3600, minimumSeconds: Int64 = 7 * 3600) {
        self.targetSeconds = targetSeconds
        self.minimumSeconds = minimumSeconds
    }
}
