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

    /// Parses PostgreSQL's ISO output `YYYY-MM-DD` from its bytes; `nil` for any other
    /// form or a day that does not exist.
    public init?(isoText text: String) {
        var text = text
        let parsed: PostgresDate? = text.withUTF8 { bytes in
            guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
            func digits(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
                (1...12).contains(month), day >= 1, day <= PostgresDate.daysInMonth(year: year, month: month)
            else { return nil }
            return PostgresDate(year: year, month: month, day: day)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `YYYY-MM-DD` (the year zero-padded to four digits).
    public var description: String {
        var bytes: [UInt8] = []
        appendISO(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `YYYY-MM-DD` without building intermediate strings (the COPY hot path).
    func appendISO(to bytes: inout [UInt8]) {
        func two(_ value: Int) {
            bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
            bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        if (0...9999).contains(year) {
            two(year / 100)
            two(year % 100)
        } else {
            let digits = String(year.magnitude)
            if year < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: String(repeating: "0", count: max(0, 4 - digits.count)).utf8)
            bytes.append(contentsOf: digits.utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        two(month)
        bytes.append(UInt8(ascii: "-"))
        two(day)
    }

    /// Orders dates chronologically.
    public static func < (lhs: PostgresDate, rhs: PostgresDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
