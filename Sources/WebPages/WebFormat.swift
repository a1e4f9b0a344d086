import Foundation
import SleepCore
import SleepReports

/// How the pages write what ReportFormat does not: byte sizes, UTC offsets, clock times of
/// the day, weekdays. Durations, percentages and dates come from SleepReports'
/// `ReportFormat`, as in the admin tool.
public enum WebFormat {
    /// A size in bytes as people read it, in binary units: `8 GiB`, `64 MiB`, `1.5 KiB`,
    /// `512 bytes`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return count == 1 ? "1 byte" : "\(count) bytes" }
        var value = Double(count)
        var unit = ""
        for candidate in units {
            value /= 1024
            unit = candidate
            if value < 1024 { break }
        }
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return "\(Int(rounded)) \(unit)" }
        return String(format: "%.1f %@", rounded, unit)
    }

    /// A UTC offset in seconds as `UTC+01:00`, `UTC-03:30`, `UTC+00:00`.
    static func utcOffset(_ seconds: Int64) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return String(format: "UTC%@%02d:%02d", sign, Int(minutes / 60), Int(minutes % 60))
    }

    /// The UTC offset at `instant` of the local time `local` (`YYYY-MM-DDTHH:MM:SS`) the
    /// rollup wrote for it: the night's own offset, whatever the zone's rules say today.
    /// Read from the zone `identifier` when the string cannot be read.
    static func offset(local: String, instant: Int64, zone identifier: String) -> Int64 {
        if let wall = wallClockSeconds(local) { return wall - instant }
        let zone = LocalTime.timeZone(identifier: identifier) ?? TimeZone(identifier: "UTC") ?? .current
        return LocalTime.offset(at: instant, in: zone)
    }

    /// Seconds since 1970-01-01T00:00:00 of a `YYYY-MM-DDTHH:MM:SS` wall-clock string.
    static func wallClockSeconds(_ local: String) -> Int64? {
        let parts = local.split(separator: "T")
        guard parts.count == 2, let day = LocalDate(parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3, (0..<24).contains(clock[0]), (0..<60).contains(clock[1]), (0..<61).contains(clock[2])
        else { return nil }
        return Int64(day.daysSinceEpoch) * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }

    /// Seconds after local midnight as `HH:MM` (`04:19`).
    static func clockOfDay(_ seconds: Int64) -> String {
        let minutes = ((seconds % 86_400 + 86_400) % 86_400) / 60
        return String(format: "%02d:%02d", Int(minutes / 60), Int(minutes % 60))
    }

    /// The English name of the day's weekday: `Monday`.
    static func weekday(_ day: LocalDate) -> String {
        weekdayNames[(day.isoWeekday - 1) % 7]
    }

    /// A confidence mark as the pages show it: its letter in a badge coloured by the mark.
    static func mark(_ mark: NightConfidence.Mark) -> HTML {
        "<span class=\"mark mark-\(mark.rawValue)\">\(mark.rawValue)</span>"
    }

    /// The English weekday names, Monday first (ISO weekday 1).
    static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The mornings a person's free days wake on, as a sentence names them: `Saturday and
    /// Sunday mornings` under the default work days, `Friday, Saturday and Sunday mornings`
    /// for a four-day week, `no morning` when every day is a work day.
    static func freeMornings(_ workDays: WorkDays) -> String {
        let free = (1...7).filter { !workDays.isoWeekdays.contains($0) }.map { weekdayNames[$0 - 1] }
        guard let last = free.last else { return "no morning" }
        let listed = free.count == 1 ? last : free.dropLast().joined(separator: ", ") + " and " + last
        return listed + " mornings"
    }

    /// A number with one decimal: `7.5`.
    static func oneDecimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A figure of a rule without needless decimals: `8`, `7.5`, `0.1`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }

    /// An hour of the day in words: `midnight`, `5 a.m.`, `noon`, `11 p.m.`.
    static func hourOfDay(_ hour: Int) -> String {
        switch (hour % 24 + 24) % 24 {
        case 0: return "midnight"
        case 12: return "noon"
        case let morning where morning < 12: return "\(morning) a.m."
        case let evening: return "\(evening - 12) p.m."
        }
    }

    /// One `divisor`th in words: `half`, `a third`, `a quarter`, `one in 5`.
    static func share(_ divisor: Int) -> String {
        switch divisor {
        case 1: return "all"
        case 2: return "half"
        case 3: return "a third"
        case 4: return "a quarter"
        default: return "one in \(divisor)"
        }
    }

    /// A whole number of hours in words (`3 hours`, `1 hour`), else as `2h 30m`.
    static func hoursInWords(_ seconds: Int64) -> String {
        guard seconds % 3600 == 0 else { return ReportFormat.hours(seconds) }
        return seconds == 3600 ? "1 hour" : "\(seconds / 3600) hours"
    }

    /// Hours with one decimal and a unit, without a sign: `1.2 h`.
    static func hoursOneDecimal(_ value: Double) -> String { String(format: "%.1f h", abs(value)) }

    /// A range of days: `2025-03-11 to 2025-03-17`, or the day alone.
    static func range(_ range: WakeDayRange) -> String {
        range.first == range.last ? range.first.description : "\(range.first) to \(range.last)"
    }

    /// What a horizon is called on the page: `Weekly`, `5 years`.
    static func horizonName(_ horizon: Horizon) -> String {
        switch horizon {
        case .daily: return "Daily"
        case .weekly: return "Weekly"
        case .monthly: return "Monthly"
        case .yearly: return "Yearly"
        case .fiveYears: return "5 years"
        case .tenYears: return "10 years"
        }
    }
}
