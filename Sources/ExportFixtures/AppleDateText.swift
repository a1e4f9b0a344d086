import SleepCore

/// Formats instants the way the Health app prints them: `2024-01-01 00:55:28 +0200`.
public enum AppleDateText {
    /// Local wall time at `utcOffsetSeconds` followed by the offset as `+HHMM`.
    public static func format(_ secondsSince1970: Int64, utcOffsetSeconds: Int32) -> String {
        let local = secondsSince1970 + Int64(utcOffsetSeconds)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        let sign = utcOffsetSeconds < 0 ? "-" : "+"
        let offsetMinutes = abs(Int(utcOffsetSeconds)) / 60
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(Int(secondOfDay / 3600), 2)):"
            + "\(pad(Int(secondOfDay % 3600 / 60), 2)):\(pad(Int(secondOfDay % 60), 2)) "
            + "\(sign)\(pad(offsetMinutes / 60, 2))\(pad(offsetMinutes % 60, 2))"
    }

    /// ISO 8601 in UTC: `2024-01-01T00:55:28Z`.
    public static func formatISO8601(_ secondsSince1970: Int64) -> String {
        let days =
            secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
        let secondOfDay = secondsSince1970 - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(Int(secondOfDay / 3600), 2)):"
            + "\(pad(Int(secondOfDay % 3600 / 60), 2)):\(pad(Int(secondOfDay % 60), 2))Z"
    }

    /// Year, month and day of a day count since 1970-01-01.
    static func civilDate(daysSince1970: Int64) -> (Int, Int, Int) {
        let date = LocalDate(daysSinceEpoch: Int(daysSince1970))
        return (date.year, date.month, date.day)
    }

    /// `YYYY-MM-DD` of the UTC day holding an instant (an `ActivitySummary`'s
    /// `dateComponents`).
    public static func formatDay(_ secondsSince1970: Int64) -> String {
        let days =
            secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// `value` with zeros before its digits up to `width` digits, after the sign if negative.
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value.magnitude)
        let digits = text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        return value < 0 ? "-" + digits : digits
    }
}
