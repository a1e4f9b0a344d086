public import Foundation

/// Local-time arithmetic on whole-second UTC instants (spec section 2), done with a
/// zone's offset at the instant instead of `Calendar`, which is far slower.
public enum LocalTime {
    /// Seconds in a calendar day of local time.
    public static let secondsPerDay: Int64 = 86_400

    /// The zone for an identifier stored with a night or nap: an IANA name, a fixed
    /// offset `GMT+hh:mm`, or `UTC`. `nil` when Foundation does not know it.
    public static func timeZone(identifier: String) -> TimeZone? {
        TimeZone(identifier: identifier)
    }

    /// The name used for a fixed-offset zone: `GMT+hh:mm` or `GMT-hh:mm` (`GMT+00:00`
    /// for zero). Seconds beyond whole minutes are dropped.
    public static func fixedOffsetIdentifier(secondsFromGMT offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        let hours = minutes / 60
        let rest = minutes % 60
        return "GMT" + sign + (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "")
            + String(rest)
    }

    /// The zone's offset from UTC at an instant, in seconds.
    @inlinable
    public static func offset(at instant: Int64, in zone: TimeZone) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// The instant as local wall-clock seconds since 1970-01-01T00:00 local time.
    @inlinable
    public static func wallClockSeconds(at instant: Int64, in zone: TimeZone) -> Int64 {
        instant + offset(at: instant, in: zone)
    }

    /// The local calendar date of an instant in a zone.
    public static func localDate(of instant: Int64, in zone: TimeZone) -> LocalDate {
        LocalDate(daysSinceEpoch: Int(floorDivide(wallClockSeconds(at: instant, in: zone), secondsPerDay)))
    }

    /// Seconds since local midnight (0 ..< 86 400) of an instant in a zone, as a wall clock
    /// reads it (02:30 after a spring-forward change reads 9 000).
    public static func secondsSinceLocalMidnight(of instant: Int64, in zone: TimeZone) -> Int64 {
        let wall = wallClockSeconds(at: instant, in: zone)
        return wall - floorDivide(wall, secondsPerDay) * secondsPerDay
    }

    /// Floor division for possibly negative numerators.
    @usableFromInline
    static func floorDivide(_ numerator: Int64, _ denominator: Int64) -> Int64 {
        let quotient = numerator / denominator
        return (numerator % denominator != 0 && (numerator < 0) != (denominator < 0)) ? quotient - 1 : quotient
    }
}
