/// A small scanner for the flat JSON arrays of integers and plain strings the rollup
/// stores (`[[1, 2], ["deep", 3, 4]]`): returns the scalars in order and ignores the
/// nesting. Much faster than a general JSON decoder for the thousands of nights a
/// summary refresh reads.
enum JSONTokens {
    /// One scalar.
    enum Token: Equatable {
        case integer(Int64)
        case string(String)
    }

    /// The integers and strings of `text`, in order. Throws `decodingFailed` on anything
    /// else (objects, escapes, fractions).
    static func scan(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        var utf8 = Array(text.utf8)
        utf8.append(0)
        var index = 0
        while utf8[index] != 0 {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"):
                index += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var negative = false
                if byte == UInt8(ascii: "-") {
                    negative = true
                    index += 1
                }
                var value: Int64 = 0
                var digits = 0
                while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[index]) {
                    let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                    let (added, overflow2) = shifted.addingReportingOverflow(Int64(utf8[index] - UInt8(ascii: "0")))
                    guard !overflow1, !overflow2 else { throw failure }
                    value = added
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { throw failure }
                tokens.append(.integer(negative ? -value : value))
            case UInt8(ascii: "\""):
                index += 1
                let start = index
                while utf8[index] != UInt8(ascii: "\""), utf8[index] != 0 {
                    guard utf8[index] != UInt8(ascii: "\\") else { throw failure }
                    index += 1
                }
                guard utf8[index] == UInt8(ascii: "\"") else { throw failure }
                tokens.append(.string(String(decoding: utf8[start..<index], as: UTF8.self)))
                index += 1
            default:
                throw failure
            }
        }
        return tokens
    }

    /// No stored text in the message: it is a person's data.
    private static let failure = StoreError(.decodingFailed, "unexpected JSON in a stored night")
}
