import SleepCore

/// An instant read from an export: whole seconds since 1970 UTC plus the UTC offset
/// printed with it.
public struct HealthTimestamp: Sendable, Hashable {
    /// Seconds since 1970-01-01T00:00:00Z, rounded to the nearest second.
    public var secondsSince1970: Int64
    /// The printed UTC offset in seconds (east positive); 0 for `Z`.
    public var utcOffsetSeconds: Int32

    /// Creates a timestamp.
    public init(secondsSince1970: Int64, utcOffsetSeconds: Int32) {
        self.secondsSince1970 = secondsSince1970
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Parses Apple's export format `2023-01-02 23:04:05 +0100` or ISO 8601
    /// (`2023-01-02T23:04:05Z`, `2023-01-02T23:04:05.678+01:00`, `...+0100`, `...+01`).
    /// Fractional seconds round to the nearest second (half up). A zone (`Z` or an
    /// offset) is required: a local time without one names no instant. Returns `nil`
    /// for anything else, including impossible dates such as February 30.
    ///
    /// The 12-hour clock of a phone set to it (Health Auto Export writes
    /// `2024-09-21 7:57:00\u{202F}am +1000`) is read too: an hour of one or two digits
    /// from 1 to 12, the seconds, then an optional narrow no-break space (U+202F), no-break
    /// space (U+00A0) or space, and `am` or `pm` in any case, with or without dots
    /// (`a.m.`). `12:xx am` is just after midnight, `12:xx pm` just after noon. Without
    /// `am` or `pm` the hour must have two digits from 00 to 23.
    ///
    /// Hand-written for speed: Foundation's `DateFormatter` manages about 10 000 dates
    /// a second on Linux.
    public init?(parsing text: some StringProtocol) {
        // A native string's bytes are read in place; others are copied once.
        let parsed =
            text.utf8.withContiguousStorageIfAvailable { HealthTimestamp(bytes: UnsafeRawBufferPointer($0)) }
            ?? Array(text.utf8).withUnsafeBytes { HealthTimestamp(bytes: $0) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Parses the same formats as ``init(parsing:)`` from UTF-8 bytes.
    init?(bytes: UnsafeRawBufferPointer) {
        var reader = FixedFormatReader(bytes: bytes)
        guard let year = reader.digits(4), reader.expect(UInt8(ascii: "-")),
            let month = reader.digits(2), reader.expect(UInt8(ascii: "-")),
            let day = reader.digits(2)
        else { return nil }
        guard reader.expect(UInt8(ascii: " ")) || reader.expect(UInt8(ascii: "T")) else { return nil }
        let hourStart = reader.index
        guard var hour = reader.digit() else { return nil }
        if let next = reader.digit() { hour = hour * 10 + next }
        let hourDigits = reader.index - hourStart
        guard reader.expect(UInt8(ascii: ":")),
            let minute = reader.digits(2), reader.expect(UInt8(ascii: ":")),
            let second = reader.digits(2)
        else { return nil }
        var roundUp: Int64 = 0
        if reader.expect(UInt8(ascii: ".")) || reader.expect(UInt8(ascii: ",")) {
            guard let first = reader.digit() else { return nil }
            roundUp = first >= 5 ? 1 : 0
            while reader.digit() != nil {}
        }
        if let isAfternoon = reader.meridiem() {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (isAfternoon ? 12 : 0)
        } else {
            guard hourDigits == 2 else { return nil }
        }
        _ = reader.expect(UInt8(ascii: " "))
        var offset: Int64 = 0
        if reader.expect(UInt8(ascii: "Z")) {
            offset = 0
        } else {
            let sign: Int64
            if reader.expect(UInt8(ascii: "+")) {
                sign = 1
            } else if reader.expect(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHours = reader.digits(2) else { return nil }
            var offsetMinutes: Int64 = 0
            if !reader.isAtEnd {
                _ = reader.expect(UInt8(ascii: ":"))
                guard let minutes = reader.digits(2) else { return nil }
                offsetMinutes = minutes
            }
            guard offsetHours <= 18, offsetMinutes < 60 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard reader.isAtEnd else { return nil }
        guard (1...12).contains(month), day >= 1,
            day <= LocalDate.daysInMonth(year: Int(year), month: Int(month)),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Int64(LocalDate(year: Int(year), month: Int(month), day: Int(day)).daysSinceEpoch)
        let local = days * 86_400 + hour * 3600 + minute * 60 + second + roundUp
        self.secondsSince1970 = local - offset
        self.utcOffsetSeconds = Int32(offset)
    }
}

/// A cursor over ASCII bytes for fixed-format parsing.
private struct FixedFormatReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func expect(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < bytes.count else { return nil }
        let value = bytes[index] &- UInt8(ascii: "0")
        guard value < 10 else { return nil }
        index += 1
        return Int64(value)
    }

    /// Reads an optional space (U+0020, U+00A0 or U+202F) and `am` or `pm` in any case,
    /// with or without dots (`a.m.`): `true` for the afternoon, `false` for the morning,
    /// `nil` (reading nothing) when no such marker follows.
    mutating func meridiem() -> Bool? {
        let start = index
        if !expect(0x20), !(expect(0xC2) && expect(0xA0)) {
            index = start
            if !(expect(0xE2) && expect(0x80) && expect(0xAF)) { index = start }
        }
        let isAfternoon: Bool
        if expect(UInt8(ascii: "a")) || expect(UInt8(ascii: "A")) {
            isAfternoon = false
        } else if expect(UInt8(ascii: "p")) || expect(UInt8(ascii: "P")) {
            isAfternoon = true
        } else {
            index = start
            return nil
        }
        let hasDots = expect(UInt8(ascii: "."))
        guard expect(UInt8(ascii: "m")) || expect(UInt8(ascii: "M")) else {
            index = start
            return nil
        }
        if hasDots {
            guard expect(UInt8(ascii: ".")) else {
                index = start
                return nil
            }
        }
        return isAfternoon
    }

    mutating func digits(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let next = digit() else { return nil }
            value = value * 10 + next
        }
        return value
    }
}
