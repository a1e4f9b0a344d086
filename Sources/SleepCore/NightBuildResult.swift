/// What the night builder made of one user's samples.
public struct NightBuildResult: Sendable, Hashable, Codable {
    /// Main sleeps, at most one per wake day, pairwise non-overlapping, sorted by onset.
    public var nights: [Night]
    /// Sleep that belongs to no night, one per cluster, pairwise non-overlapping and not
    /// overlapping any night, sorted by start.
    public var naps: [Nap]

    /// Creates a result.
    public init(nights: [Night] = [], naps: [Nap] = []) {
        self.nights = nights
        self.naps = naps
    }
}
