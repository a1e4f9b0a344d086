public import Foundation

/// A sample's local zone after spec section 2's rules: the identifier stored with a
/// night, the `TimeZone` to compute local dates with, and the rule that supplied it.
public struct ResolvedZone: Sendable, Hashable {
    /// The identifier stored with nights and naps: an IANA name such as `Europe/Berlin`,
    /// a fixed offset written `GMT+hh:mm` / `GMT-hh:mm`, or `UTC`.
    public var identifier: String
    /// The zone itself.
    public var timeZone: TimeZone
    /// Which rule supplied it.
    public var origin: ZoneOrigin

    /// Creates a resolved zone.
    public init(identifier: String, timeZone: TimeZone, origin: ZoneOrigin) {
        self.identifier = identifier
        self.timeZone = timeZone
        self.origin = origin
    }
}
