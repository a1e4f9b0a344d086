import Foundation
public import SleepCore

/// How durations, fractions, times and horizon buckets are written in every report: the
/// admin tool's text and CSV, the charts, and later the web pages.
public enum ReportFormat {
    /// Hours as people read them: `7h 25m`.
    public static func hours(_ seconds: Int64) -> String { SleepDuration.format(seconds: seconds) }

    /// Hours, or `-` when absent.
    public static func hours(_ seconds: Int64?) -> String { seconds.map(hours) ?? "-" }

    /// A fraction as a whole percentage: `91%`.
    public static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded()))%" }

    /// Signed hours with one decimal: `+1.2h`, `-0.4h`.
    public static func signedHours(_ hours: Double) -> String {
        (hours >= 0 ? "+" : "-") + String(format: "%.1fh", abs(hours))
    }

    /// A count of nights: `1 night`, `7 nights`.
    public static func nights(_ count: Int) -> String { "\(count) night\(count == 1 ? "" : "s")" }

    /// What a summary's debt is measured against, as a noun: "target" (the sleep the
    /// person set) or "estimated need" (their own need, with that setting chosen).
    public static func debtReference(_ summary: Summary) -> String {
        summary.estimatedNeed == nil ? "target" : "estimated need"
    }

    /// `HH:MM` of a `YYYY-MM-DDTHH:MM:SS` local time string.
    public static func clock(_ local: String) -> String {
        guard let separator = local.firstIndex(of: "T") else { return local }
        return String(local[local.index(after: separator)...].prefix(5))
    }

    /// An instant as `YYYY-MM-DD HH:MM` wall-clock time in `zone` (UTC when unknown).
    public static func localTime(_ epochSeconds: Int64, zone identifier: String) -> String {
        let zone = LocalTime.timeZone(identifier: identifier) ?? TimeZone(identifier: "UTC") ?? .current
        let wall = LocalTime.wallClockSeconds(at: epochSeconds, in: zone)
        let day = LocalDate(daysSinceEpoch: Int(floorDivision(wall, 86_400)))
        let minutes = (wall - floorDivision(wall, 86_400) * 86_400) / 60
        return day.description + String(format: " %02d:%02d", Int(minutes / 60), Int(minutes % 60))
    }

    /// `HH:MM` of an instant in `zone`.
    public static func localClock(_ epochSeconds: Int64, zone identifier: String) -> String {
        String(localTime(epochSeconds, zone: identifier).suffix(5))
    }

    /// An instant as `YYYY-MM-DD HH:MM UTC` (bookkeeping times: imports, rollups); `-`
    /// when absent.
    public static func utcTime(_ epochSeconds: Int64?) -> String {
        guard let epochSeconds else { return "-" }
        return localTime(epochSeconds, zone: "UTC") + " UTC"
    }

    /// An instant as ISO 8601 UTC (`2025-03-17T04:00:00Z`); empty when absent.
    public static func isoUTC(_ epochSeconds: Int64?) -> String {
        guard let epochSeconds else { return "" }
        let day = LocalDate(daysSinceEpoch: Int(floorDivision(epochSeconds, 86_400)))
        let seconds = epochSeconds - floorDivision(epochSeconds, 86_400) * 86_400
        return day.description + "T" + twoDigits(seconds / 3600) + ":" + twoDigits(seconds % 3600 / 60) + ":"
            + twoDigits(seconds % 60) + "Z"
    }

    /// An instant as ISO 8601 at the UTC offset `offsetSeconds` (`2024-01-01T03:27:53+02:00`),
    /// or in UTC (``isoUTC(_:)``) without an offset or with one that is not whole minutes.
    public static func isoOffset(_ epochSeconds: Int64, offsetSeconds: Int32?) -> String {
        guard let offsetSeconds, offsetSeconds % 60 == 0, offsetSeconds != 0 else { return isoUTC(epochSeconds) }
        let offset = Int64(offsetSeconds)
        let minutes = abs(offset) / 60
        return String(isoUTC(epochSeconds + offset).dropLast()) + (offset < 0 ? "-" : "+")
            + twoDigits(minutes / 60) + ":" + twoDigits(minutes % 60)
    }

    /// `0` to `99` with a leading zero (`07`); cheaper than `String(format:)`, which the
    /// server's access log would pay on every request.
    static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }

    /// What one bucket of a horizon is: `night`, `day`, `week`, `month` or `year`.
    public static func bucketName(_ horizon: Horizon) -> String {
        switch horizon {
        case .daily: return "night"
        case .weekly: return "day"
        case .monthly: return "week"
        case .yearly: return "month"
        case .fiveYears, .tenYears: return "year"
        }
    }

    /// A bucket's label: the day, `2025-03-10..2025-03-16`, `2025-03` or `2025` when the
    /// bucket is a whole month or year, with cut buckets shown as ranges.
    public static func bucketLabel(_ range: WakeDayRange, horizon: Horizon) -> String {
        if range.first == range.last { return range.first.description }
        let first = range.first
        let last = range.last
        switch horizon {
        case .yearly
        where first.day == 1 && last.day == LocalDate.daysInMonth(year: last.year, month: last.month)
            && first.month == last.month:
            return String(range.first.description.prefix(7))
        case .fiveYears, .tenYears:
            if first.month == 1, first.day == 1, last.month == 12, last.day == 31 { return String(first.year) }
            return "\(first)..\(last)"
        default:
            return "\(first)..\(last)"
        }
    }

    private static func floorDivision(_ dividend: Int64, _ divisor: Int64) -> Int64 {
        dividend >= 0 ? dividend / divisor : -((-dividend + divisor - 1) / divisor)
    }
}
