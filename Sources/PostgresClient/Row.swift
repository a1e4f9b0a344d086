public import Foundation

/// One result row. Every reader returns `nil` for SQL NULL and throws `decodingFailed`
/// for an unknown column or a value that does not parse as the asked type.
///
/// Columns are addressed by name (the first column with that name) or by zero-based index.
public struct Row: Sendable {
    /// Maps column names to positions; shared by all rows of a result.
    final class ColumnIndex: Sendable {
        let names: [String]
        let positions: [String: Int]
        init(_ names: [String]) {
            self.names = names
            var positions: [String: Int] = [:]
            for (position, name) in names.enumerated() where positions[name] == nil {
                positions[name] = position
            }
            self.positions = positions
        }
    }

    /// The raw text values in column order; `nil` for NULL.
    public let values: [String?]
    let columnIndex: ColumnIndex

    private func position(of column: String) throws -> Int {
        guard let position = columnIndex.positions[column] else {
            throw PostgresError(
                .decodingFailed, "no column named \(column)",
                detail: "columns: \(columnIndex.names.joined(separator: ", "))")
        }
        return position
    }

    private func text(at position: Int) throws -> String? {
        guard values.indices.contains(position) else {
            throw PostgresError(.decodingFailed, "no column at index \(position); the row has \(values.count)")
        }
        return values[position]
    }

    private func parse<T>(_ column: String, _ text: String?, as type: String, _ convert: (String) -> T?) throws
        -> T?
    {
        guard let text else { return nil }
        guard let value = convert(text) else {
            throw PostgresError(
                .decodingFailed, "column \(column) is not a valid \(type)", detail: "value: \(text.prefix(40))")
        }
        return value
    }

    /// Whether the column is NULL.
    public func isNull(_ column: String) throws -> Bool { try text(at: position(of: column)) == nil }

    /// The column's text.
    public func string(_ column: String) throws -> String? { try text(at: position(of: column)) }
    /// The column's text, by index.
    public func string(_ index: Int) throws -> String? { try text(at: index) }

    /// The column as a 64-bit integer (`smallint`, `integer`, `bigint`).
    public func int64(_ column: String) throws -> Int64? {
        try parse(column, text(at: position(of: column)), as: "integer", Row.parseInteger)
    }
    /// The column as a 64-bit integer, by index.
    public func int64(_ index: Int) throws -> Int64? {
        try parse("#\(index)", text(at: index), as: "integer", Row.parseInteger)
    }

    /// The column as an `Int`.
    public func int(_ column: String) throws -> Int? {
        try parse(column, text(at: position(of: column)), as: "integer") { Row.parseInteger($0).map(Int.init) }
    }
    /// The column as an `Int`, by index.
    public func int(_ index: Int) throws -> Int? {
        try parse("#\(index)", text(at: index), as: "integer") { Row.parseInteger($0).map(Int.init) }
    }

    /// The column as a `Double` (`real`, `double precision`, `numeric`; `NaN`, `Infinity`).
    public func double(_ column: String) throws -> Double? {
        try parse(column, text(at: position(of: column)), as: "number", Row.parseDouble)
    }
    /// The column as a `Double`, by index.
    public func double(_ index: Int) throws -> Double? {
        try parse("#\(index)", text(at: index), as: "number", Row.parseDouble)
    }

    /// The column as a `Bool` (`t`/`f`).
    public func bool(_ column: String) throws -> Bool? {
        try parse(column, text(at: position(of: column)), as: "boolean", Row.parseBool)
    }
    /// The column as a `Bool`, by index.
    public func bool(_ index: Int) throws -> Bool? {
        try parse("#\(index)", text(at: index), as: "boolean", Row.parseBool)
    }

    /// The column as a ``PostgresDate`` (`date`, ISO output style).
    public func date(_ column: String) throws -> PostgresDate? {
        try parse(column, text(at: position(of: column)), as: "date", Row.parseDate)
    }
    /// The column as a ``PostgresDate``, by index.
    public func date(_ index: Int) throws -> PostgresDate? {
        try parse("#\(index)", text(at: index), as: "date", Row.parseDate)
    }

    /// A `timestamptz` column as whole seconds since 1970-01-01T00:00:00Z (fractions are
    /// truncated toward the past). ``Connection`` sets `TimeZone=UTC, DateStyle=ISO`, so
    /// the text is `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.
    public func epochSeconds(_ column: String) throws -> Int64? {
        try parse(column, text(at: position(of: column)), as: "timestamp", Row.parseTimestamp)
    }
    /// A `timestamptz` column as epoch seconds, by index.
    public func epochSeconds(_ index: Int) throws -> Int64? {
        try parse("#\(index)", text(at: index), as: "timestamp", Row.parseTimestamp)
    }

    /// A `bytea` column (hex output form `\x...`).
    public func bytes(_ column: String) throws -> Data? {
        try parse(column, text(at: position(of: column)), as: "bytea", Row.parseBytea)
    }
    /// A `bytea` column, by index.
    public func bytes(_ index: Int) throws -> Data? {
        try parse("#\(index)", text(at: index), as: "bytea", Row.parseBytea)
    }

    static func parseDouble(_ text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(text)
        }
    }

    /// `YYYY-MM-DD` (the form PostgreSQL sends with `DateStyle=ISO`) read straight from
    /// the bytes.
    static func parseDate(_ text: String) -> PostgresDate? { PostgresDate(isoText: text) }

    /// An integer in PostgreSQL's output form (`-`? digits), read from the UTF-8 bytes
    /// (the generic `Int64(String)` was a fifth of the nightly rollup's reading time);
    /// `nil` for anything else or a value outside `Int64`.
    static func parseInteger(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            var index = 0
            let isNegative = bytes.first == UInt8(ascii: "-")
            if isNegative || bytes.first == UInt8(ascii: "+") { index = 1 }
            // At most 19 digits: the magnitude fits in UInt64 without overflow.
            guard index < bytes.count, bytes.count - index <= 19 else {
                return index < bytes.count ? Int64(String(decoding: bytes, as: UTF8.self)) : nil
            }
            var magnitude: UInt64 = 0
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                magnitude = magnitude &* 10 &+ UInt64(digit)
                index += 1
            }
            if isNegative {
                return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
            }
            return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
        }
    }

    static func parseBool(_ text: String) -> Bool? {
        switch text {
        case "t", "true": return true
        case "f", "false": return false
        default: return nil
        }
    }

    static func parseBytea(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"),
            bytes.count % 2 == 0
        else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff]+00[:MM]` (UTC output) into epoch seconds, with
    /// the year as ``PostgresDate`` reads it (more digits after 9999, ` BC` at the end).
    static func parseTimestamp(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)
        var isBeforeCommonEra = false
        if bytes.count > 3, bytes.suffix(3).elementsEqual(" BC".utf8) {
            bytes.removeLast(3)
            isBeforeCommonEra = true
        }
        guard let (printed, dateEnd) = bytes.withUnsafeBufferPointer({ PostgresDate.leadingDate(in: $0) }),
            let date = isBeforeCommonEra ? printed.fromBeforeCommonEra() : (printed.isRealDay ? printed : nil)
        else { return nil }
        bytes.removeFirst(dateEnd - 10)  // the time starts 10 bytes in, as after a four-digit year
        guard bytes.count >= 19, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            let sign: Int
            switch bytes[index] {
            case UInt8(ascii: "+"): sign = 1
            case UInt8(ascii: "-"): sign = -1
            default: return nil
            }
            let parts = String(decoding: bytes[(index + 1)...], as: UTF8.self).split(separator: ":")
            guard (1...3).contains(parts.count), let hours = Int(parts[0]) else { return nil }
            let minutes = parts.count > 1 ? Int(parts[1]) : 0
            let seconds = parts.count > 2 ? Int(parts[2]) : 0
            guard let minutes, let seconds else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60 + seconds)
        }
        let local = Int64(date.daysSince1970) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return local - Int64(offsetSeconds)
    }
}
