/// A PostgreSQL `date`: a day of the proleptic Gregorian calendar, as the client sends
/// and reads it (`YYYY-MM-DD` in text, days since 2000-01-01 in binary).
///
/// The client keeps its own small calendar arithmetic so that it depends on no caller's
/// date type; callers convert at their edge.
public struct PostgresDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year (astronomical numbering: 0 is 1 BC).
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

    /// The date `days` days after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    public init(daysSince1970 days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(
            year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month,
            day: dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
    }

    /// Days since 1970-01-01, negative before (Howard Hinnant's `days_from_civil`).
    public var daysSince1970: Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Parses PostgreSQL's ISO output of a date: `YYYY-MM-DD`, more year digits after
    /// 9999 (`10000-01-01`), and ` BC` after years before 1 (`0001-01-01 BC` is year 0);
    /// `nil` for any other form or a day that does not exist.
    public init?(isoText text: String) {
        var text = text
        let parsed: PostgresDate? = text.withUTF8 { bytes in
            guard let (date, end) = PostgresDate.leadingDate(in: bytes) else { return nil }
            if end == bytes.count { return date.isRealDay ? date : nil }
            guard PostgresDate.isEraSuffix(bytes, from: end) else { return nil }
            return date.fromBeforeCommonEra()
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The date at the start of `bytes` (`Y...Y-MM-DD`, four to nine year digits) as
    /// printed, its year not yet read in its era and its day not yet checked against the
    /// month (``isRealDay``, ``fromBeforeCommonEra()``), and the index after it; `nil`
    /// when there is none.
    static func leadingDate(in bytes: UnsafeBufferPointer<UInt8>) -> (PostgresDate, end: Int)? {
        var index = 0
        var year = 0
        while index < bytes.count, index < 9, let digit = decimalDigit(bytes[index]) {
            year = year * 10 + digit
            index += 1
        }
        guard index >= 4, index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "-"),
            bytes[index + 3] == UInt8(ascii: "-"),
            let month1 = decimalDigit(bytes[index + 1]), let month2 = decimalDigit(bytes[index + 2]),
            let day1 = decimalDigit(bytes[index + 4]), let day2 = decimalDigit(bytes[index + 5])
        else { return nil }
        let month = month1 * 10 + month2
        let day = day1 * 10 + day2
        // Year 0 is never printed: PostgreSQL writes it as 0001 BC.
        guard year >= 1, (1...12).contains(month), day >= 1 else { return nil }
        return (PostgresDate(year: year, month: month, day: day), index + 6)
    }

    /// Whether `bytes` from `start` to the end is exactly ` BC`.
    static func isEraSuffix(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        bytes.count - start == 3 && bytes[start] == UInt8(ascii: " ") && bytes[start + 1] == UInt8(ascii: "B")
            && bytes[start + 2] == UInt8(ascii: "C")
    }

    /// The date a printed `BC` date names, in astronomical numbering (1 BC is year 0), when
    /// the day exists in that year (BC leap years are 1 BC, 5 BC, ...); `nil` otherwise.
    func fromBeforeCommonEra() -> PostgresDate? {
        let date = PostgresDate(year: 1 - year, month: month, day: day)
        return date.isRealDay ? date : nil
    }

    /// Whether the day exists in its month and year.
    var isRealDay: Bool {
        (1...12).contains(month) && day >= 1 && day <= PostgresDate.daysInMonth(year: year, month: month)
    }

    private static func decimalDigit(_ byte: UInt8) -> Int? {
        let digit = Int(byte) - Int(UInt8(ascii: "0"))
        return (0...9).contains(digit) ? digit : nil
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The date as PostgreSQL's ISO date style writes and reads it: `YYYY-MM-DD` for
    /// years 1 to 9999, more year digits after 9999 (`10000-01-01`), and for years before 1
    /// the BC year with ` BC` after it (year 0 is `0001-01-01 BC`, year -1 `0002-01-01 BC`).
    public var description: String {
        var bytes: [UInt8] = []
        appendISO(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether PostgreSQL writes this date with ` BC` (years 0 and before).
    var isBeforeCommonEra: Bool { year <= 0 }

    /// Appends the date as ``description`` writes it, without building intermediate
    /// strings (the COPY hot path).
    func appendISO(to bytes: inout [UInt8]) {
        appendDayWithoutEra(to: &bytes)
        appendEra(to: &bytes)
    }

    /// Appends `YYYY-MM-DD` with the year as its era counts it (the BC year before year 1):
    /// a timestamp puts its time between this and the era (`0001-01-01 00:00:00+00 BC`).
    func appendDayWithoutEra(to bytes: inout [UInt8]) {
        func two(_ value: Int) {
            bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
            bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        let printedYear = isBeforeCommonEra ? 1 - year : year
        if printedYear <= 9999 {
            two(printedYear / 100)
            two(printedYear % 100)
        } else {
            bytes.append(contentsOf: String(printedYear).utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        two(month)
        bytes.append(UInt8(ascii: "-"))
        two(day)
    }

    /// Appends ` BC` for a date before year 1, nothing otherwise.
    func appendEra(to bytes: inout [UInt8]) {
        if isBeforeCommonEra { bytes.append(contentsOf: " BC".utf8) }
    }

    /// Orders dates chronologically.
    public static func < (lhs: PostgresDate, rhs: PostgresDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
