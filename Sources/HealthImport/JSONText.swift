/// Turns the raw bytes of a JSON string (``JSONToken``) into text: escapes decoded,
/// UTF-8 checked, and the characters XML 1.0 forbids (NUL, vertical tab...) replaced by
/// U+FFFD as the XML and CSV readers do (PostgreSQL text cannot hold a NUL).
enum JSONText {
    /// The text, and how many characters were replaced; or why it is rejected.
    static func decode(_ token: JSONToken) -> Result<(text: String, replaced: Int), RecordRejection> {
        if !token.hasEscapes, token.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 }) {
            // Printable ASCII, the usual case: nothing to decode or replace.
            return .success((String(decoding: token.bytes, as: UTF8.self), 0))
        }
        var output: [UInt8] = []
        output.reserveCapacity(token.bytes.count)
        var replaced = 0
        let sanitized: Result<Int, RecordRejection>
        if token.hasEscapes {
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(token.bytes.count)
            replaced += unescape(token.bytes, into: &unescaped)
            sanitized = unescaped.withUnsafeBytes { SleepRecordParser.appendSanitized($0, to: &output) }
        } else {
            sanitized = SleepRecordParser.appendSanitized(token.bytes, to: &output)
        }
        switch sanitized {
        case .success(let count): replaced += count
        case .failure(let rejection): return .failure(rejection)
        }
        return .success((String(decoding: output, as: UTF8.self), replaced))
    }

    /// Decodes the escapes of a string the tokenizer checked (`\"`, `\\`, `\/`, `\b`,
    /// `\f`, `\n`, `\r`, `\t`, `\uXXXX` with surrogate pairs) into UTF-8; a lone surrogate
    /// becomes U+FFFD. Returns how many lone surrogates were replaced. An escape cut by the
    /// string cap is dropped.
    static func unescape(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Int {
        var replaced = 0
        var index = 0
        let count = bytes.count
        var highSurrogate: UInt32?
        func flushSurrogate() {
            if highSurrogate != nil {
                append(0xFFFD, to: &output)
                replaced += 1
                highSurrogate = nil
            }
        }
        while index < count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                flushSurrogate()
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < count else { break }
            let escaped = bytes[index + 1]
            guard escaped == UInt8(ascii: "u") else {
                flushSurrogate()
                switch escaped {
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                default: output.append(escaped)
                }
                index += 2
                continue
            }
            guard index + 6 <= count, let unit = hexValue(bytes, at: index + 2) else { break }
            index += 6
            switch unit {
            case 0xD800...0xDBFF:
                flushSurrogate()
                highSurrogate = unit
            case 0xDC00...0xDFFF:
                if let high = highSurrogate {
                    append(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), to: &output)
                    highSurrogate = nil
                } else {
                    append(0xFFFD, to: &output)
                    replaced += 1
                }
            default:
                flushSurrogate()
                append(unit, to: &output)
            }
        }
        flushSurrogate()
        return replaced
    }

    private static func hexValue(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Appends the UTF-8 form of a scalar.
    private static func append(_ scalar: UInt32, to output: inout [UInt8]) {
        guard let value = Unicode.Scalar(scalar), let encoded = UTF8.encode(value) else { return }
        output.append(contentsOf: encoded)
    }
}
