/// Parsing and printing of sleep durations as people write them: `8h`, `7h30m`, `450m`,
/// `7.5h`. Printed as `7h 25m`.
public enum SleepDuration {
    /// Parses a duration into whole seconds; `nil` when malformed, empty, or unit-less.
    public static func parse(_ text: String) -> Int64? {
        var rest = Substring(text.lowercased().replacingOccurrences(of: " ", with: ""))
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        var sawUnit = Set<Character>()
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number), value.isFinite else { return nil }
            rest = rest.dropFirst(number.count)
            guard let unit = rest.first, "hms".contains(unit), !sawUnit.contains(unit) else { return nil }
            sawUnit.insert(unit)
            rest = rest.dropFirst()
            switch unit {
            case "h": total += value * 3600
            case "m": total += value * 60
            default: total += value
            }
        }
        guard total < 48 * 3600 else { return nil }
        return Int64(total.rounded())
    }

    /// Formats seconds as `7h 25m` (rounded to the minute; negative values get a minus sign).
    public static func format(seconds: Int64) -> String {
        let sign = seconds < 0 ? "-" : ""
        let minutes = (abs(seconds) + 30) / 60
        let hours = minutes / 60
        let rest = minutes % 60
        if hours == 0 { return "\(sign)\(rest)m" }
        return rest == 0 ? "\(sign)\(hours)h" : "\(sign)\(hours)h \(rest)m"
    }
}
