import Foundation

/// Resolves each sample's local zone by spec section 2, caching `TimeZone` objects so a
/// history of 100 000 samples builds each zone once.
///
/// Order: the sample's `HKTimeZone` when Foundation knows it as an IANA zone; else the
/// user's configured zone (when valid); else a fixed-offset zone from the printed UTC
/// offset; else UTC.
public struct SampleZoneResolver: Sendable {
    /// The user's zone, when the configured identifier was valid.
    public let userZone: ResolvedZone?
    private var zonesByIdentifier: [String: TimeZone?] = [:]
    private var zonesByOffset: [Int32: ResolvedZone] = [:]
    private static let utc = ResolvedZone(
        identifier: "UTC", timeZone: TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt, origin: .utcFallback)

    /// Creates a resolver for one user; an unknown or empty identifier counts as none.
    public init(userTimeZoneIdentifier: String?) {
        if let identifier = userTimeZoneIdentifier, !identifier.isEmpty,
            let zone = TimeZone(identifier: identifier)
        {
            userZone = ResolvedZone(identifier: identifier, timeZone: zone, origin: .userTimeZone)
        } else {
            userZone = nil
        }
    }

    /// The local zone of a sample.
    public mutating func zone(for sample: SleepSample) -> ResolvedZone {
        zone(sampleTimeZoneIdentifier: sample.timeZoneIdentifier, printedUTCOffset: sample.printedUTCOffset)
    }

    /// The local zone for a sample's zone fields.
    public mutating func zone(sampleTimeZoneIdentifier: String?, printedUTCOffset: Int32?) -> ResolvedZone {
        if let identifier = sampleTimeZoneIdentifier, !identifier.isEmpty, let zone = cachedZone(identifier) {
            return ResolvedZone(identifier: identifier, timeZone: zone, origin: .sampleTimeZone)
        }
        if let userZone { return userZone }
        if let offset = printedUTCOffset { return fixedZone(offset) }
        return Self.utc
    }

    private mutating func cachedZone(_ identifier: String) -> TimeZone? {
        if let cached = zonesByIdentifier[identifier] { return cached }
        let zone = TimeZone(identifier: identifier)
        zonesByIdentifier[identifier] = zone
        return zone
    }

    private mutating func fixedZone(_ offset: Int32) -> ResolvedZone {
        if let cached = zonesByOffset[offset] { return cached }
        let minutes = Int(offset) / 60
        let resolved: ResolvedZone
        if let zone = TimeZone(secondsFromGMT: minutes * 60) {
            resolved = ResolvedZone(
                identifier: LocalTime.fixedOffsetIdentifier(secondsFromGMT: minutes * 60), timeZone: zone,
                origin: .printedOffset)
        } else {
            resolved = Self.utc
        }
        zonesByOffset[offset] = resolved
        return resolved
    }
}
