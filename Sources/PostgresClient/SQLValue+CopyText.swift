extension SQLValue {
    /// Appends this value in COPY text form (escaped) without building intermediate
    /// strings for numbers, booleans, dates and timestamps: the hot path of bulk imports.
    func appendCopyText(to bytes: inout [UInt8]) throws {
        switch self {
        case .text(let value), .json(let value):
            try CopyText.appendEscaped(value, to: &bytes)
        case .int64(let value):
            SQLValue.appendDecimal(value, to: &bytes)
        case .int(let value):
            SQLValue.appendDecimal(Int64(value), to: &bytes)
        case .bool(let value):
            bytes.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case .date(let value):
            value.appendISO(to: &bytes)
        case .timestamp(let seconds):
            SQLValue.appendUTCTimestamp(epochSeconds: seconds, to: &bytes)
        case .double, .bytes:
            try CopyText.appendEscaped(textRepresentation, to: &bytes)
        }
    }

    private static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    private static func appendTwoDigits(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Appends `YYYY-MM-DD HH:MM:SS+00` for an instant in whole UTC seconds, with the
    /// year written as ``PostgresDate`` writes it (` BC` at the very end before year 1).
    static func appendUTCTimestamp(epochSeconds seconds: Int64, to bytes: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = PostgresDate(daysSince1970: Int(days))
        date.appendDayWithoutEra(to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendTwoDigits(secondOfDay / 3600, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60, to: &bytes)
        bytes.append(contentsOf: "+00".utf8)
        date.appendEra(to: &bytes)
    }
}
