import Foundation

/// Converts UTC instants to local clock readings in a night's zone, caching one
/// `TimeZone` per identifier. Unknown identifiers fall back to a `GMT+hh:mm` parse, then
/// to UTC, so no input can trap.
///
/// Nights are read in wake-day order, so the clock also remembers, for the zone it read
/// last, the span between two transitions of the zone's offset (from Foundation's
/// `nextDaylightSavingTimeTransition(after:)`, which lists every offset change) and
/// answers instants inside it without asking Foundation again.
struct MetricZoneClock {
    private var zones: [String: TimeZone] = [:]
    private var currentIdentifier = ""
    private var current: TimeZone?
    private var constantFrom: Int64 = 0
    private var constantUntil: Int64 = 0
    private var constantOffset: Int64 = 0

    /// Seconds east of UTC in `zone` at `instant`.
    mutating func offset(zone identifier: String, at instant: Int64) -> Int64 {
        if identifier == currentIdentifier, let zone = current {
            if instant >= constantFrom, instant < constantUntil { return constantOffset }
            if instant < constantFrom { return MetricZoneClock.offset(of: zone, at: instant) }
            remember(zone, around: instant)
            return constantOffset
        }
        let zone: TimeZone
        if let cached = zones[identifier] {
            zone = cached
        } else {
            zone = MetricZoneClock.resolve(identifier)
            zones[identifier] = zone
        }
        currentIdentifier = identifier
        current = zone
        remember(zone, around: instant)
        return constantOffset
    }

    /// Caches the constant-offset span of `zone` holding `instant`, reaching up to two days
    /// back so the earlier readings of the same night also hit.
    private mutating func remember(_ zone: TimeZone, around instant: Int64) {
        let base = instant - 2 * 86_400
        var from = base
        var until = MetricZoneClock.nextTransition(of: zone, after: base)
        if until <= instant {
            from = until
            until = MetricZoneClock.nextTransition(of: zone, after: from)
        }
        constantOffset = MetricZoneClock.offset(of: zone, at: instant)
        if instant >= from, instant < until {
            constantFrom = from
            constantUntil = until
        } else {
            constantFrom = instant
            constantUntil = instant + 1
        }
    }

    private static func offset(of zone: TimeZone, at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    private static func nextTransition(of zone: TimeZone, after instant: Int64) -> Int64 {
        guard
            let next = zone.nextDaylightSavingTimeTransition(
                after: Date(timeIntervalSince1970: Double(instant)))
        else { return Int64.max }
        let seconds = next.timeIntervalSince1970.rounded(.down)
        return seconds < 9e18 ? Int64(seconds) : Int64.max
    }

    /// Local wall-clock seconds since 1970-01-01T00:00 (local), i.e. instant + offset.
    mutating func localSeconds(zone: String, at instant: Int64) -> Int64 {
        instant + offset(zone: zone, at: instant)
    }

    /// The instant of local 12:00 on `day` in `zone` (two fixed-point steps, exact except
    /// inside a transition at noon, which no real zone has).
    mutating func noon(of day: LocalDate, zone: String) -> Int64 {
        let wall = Int64(day.daysSinceEpoch) * 86_400 + 43_200
        let first = wall - offset(zone: zone, at: wall)
        return wall - offset(zone: zone, at: first)
    }

    private static func resolve(_ identifier: String) -> TimeZone {
        if let zone = TimeZone(identifier: identifier) { return zone }
        if let seconds = fixedOffset(identifier), let zone = TimeZone(secondsFromGMT: seconds) {
            return zone
        }
        return TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt
    }

    /// Parses `GMT+hh:mm`, `GMT-hhmm` or `UTC+hh`.
    private static func fixedOffset(_ identifier: String) -> Int? {
        var text = Substring(identifier)
        if text.hasPrefix("GMT") || text.hasPrefix("UTC") {
            text = text.dropFirst(3)
        } else {
            return nil
        }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { return nil }
        let (hours, minutes) = digits.count <= 2 ? (value, 0) : (value / 100, value % 100)
        guard hours <= 18, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == "-" ? -seconds : seconds
    }
}

extension MetricZoneClock {
    /// Floor division for local-time arithmetic on possibly negative values.
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The non-negative remainder of `a` modulo `b` (for positive `b`).
    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { a - floorDivide(a, b) * b }
}
