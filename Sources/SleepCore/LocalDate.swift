/// A calendar date without a time or zone, such as a night's wake day.
///
/// Encoded in JSON and SQL as `YYYY-MM-DD`.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The proleptic Gregorian year.
    public var year: Int
    /// The month, 1-12.
    public var month: Int
    /// The day of the month, 1-31.
    public var day: Int

    /// Creates a date from its parts; no validation beyond what callers guarantee.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The dates SleepLedger takes from a person and stores: 1900-01-01 through
    /// 2199-12-31. Every date given to a command or a service (an as-of day, the first and
    /// last day of a listing) must lie in it, and samples must start and end within
    /// ``supportedInstants``.
    ///
    /// Why these bounds: no sleep record is older than 1900 and none is from after 2199,
    /// so a date outside is a typo or a forged value. Everything derived from a supported
    /// date stays in four-digit years after year 1 (a 10-year summary as of 1900-01-01
    /// reads nights back to 1889), where this type, PostgreSQL's ISO date text and Apple's
    /// export format agree, and far inside PostgreSQL's `date` and `timestamptz` ranges
    /// (4713 BC to 5874897 and 294276 AD).
    public static let supportedRange =
        LocalDate(year: 1900, month: 1, day: 1)...LocalDate(year: 2199, month: 12, day: 31)

    /// The instants (whole seconds since 1970-01-01T00:00:00Z) a sample may start and end
    /// at: from 1900-01-01 00:00:00 through 2199-12-31 23:59:59 UTC, the days of
    /// ``supportedRange``.
    public static let supportedInstants: ClosedRange<Int64> =
        Int64(supportedRange.lowerBound.daysSinceEpoch) * 86_400...Int64(supportedRange.upperBound.daysSinceEpoch + 1)
        * 86_400 - 1

    /// `1900-01-01 through 2199-12-31`: ``supportedRange`` as messages name it.
    public static let supportedRangeText = "\(supportedRange.lowerBound) through \(supportedRange.upperBound)"

    /// Whether the date lies in ``supportedRange``.
    public var isSupported: Bool { Self.supportedRange.contains(self) }

    /// Parses `YYYY-MM-DD`; `nil` if malformed or not a real date.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, d <= LocalDate.daysInMonth(year: y, month: m)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD`, the year with at least four digits: years after 9999 with more
    /// (`10000-01-01`), years before 1 (astronomical numbering: 0 is 1 BC) with a minus
    /// sign before four or more digits (`-0001-12-31`), as ISO 8601's expanded years write
    /// them. Every date SleepLedger takes or stores lies in ``supportedRange``, where the
    /// year always has exactly four digits.
    public var description: String {
        let digits = String(year.magnitude)
        let paddedYear = digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
        let m = String(month)
        let d = String(day)
        return (year < 0 ? "-" : "") + paddedYear + "-" + (m.count < 2 ? "0" + m : m) + "-"
            + (d.count < 2 ? "0" + d : d)
    }

    /// Days since 1970-01-01 (negative before), by Howard Hinnant's civil-days algorithm.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The date `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch z0: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    /// The date `days` days later (earlier when negative).
    public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// ISO weekday: 1 = Monday ... 7 = Sunday.
    public var isoWeekday: Int {
        let w = (daysSinceEpoch + 3) % 7  // 1970-01-01 was a Thursday (ISO 4)
        return (w < 0 ? w + 7 : w) + 1
    }

    /// Whether the date is a Saturday or Sunday.
    public var isWeekend: Bool { isoWeekday >= 6 }

    /// Number of days in a month of the proleptic Gregorian calendar.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Orders dates chronologically.
    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Decodes from `YYYY-MM-DD`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected YYYY-MM-DD, got \(text)")
        }
        self = date
    }

    /// Encodes as `YYYY-MM-DD`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
