public import Foundation

/// A parameter value sent to PostgreSQL in text format through `PQexecParams` or written
/// into a `COPY` stream. Values are never spliced into SQL text.
public enum SQLValue: Sendable, Hashable {
    /// A `text` (or any type the server parses from text).
    case text(String)
    /// A `bigint`.
    case int64(Int64)
    /// An `integer`/`bigint` from a Swift `Int`.
    case int(Int)
    /// A `double precision`; infinities and NaN are sent as PostgreSQL spells them.
    case double(Double)
    /// A `boolean`.
    case bool(Bool)
    /// A `date`, `YYYY-MM-DD`.
    case date(PostgresDate)
    /// A `timestamptz` given as whole seconds since 1970-01-01T00:00:00Z.
    case timestamp(epochSeconds: Int64)
    /// A `bytea`, sent in hex form (`\x...`).
    case bytes(Data)
    /// A `json`/`jsonb` document, sent as its text.
    case json(String)

    /// The text form PostgreSQL parses for this value.
    public var textRepresentation: String {
        switch self {
        case .text(let value), .json(let value): return value
        case .int64(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value):
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
            return "\(value)"
        case .bool(let value): return value ? "t" : "f"
        case .date(let value): return value.description
        case .timestamp(let seconds): return SQLValue.utcTimestampText(epochSeconds: seconds)
        case .bytes(let data):
            let digits = Array("0123456789abcdef".utf8)
            var bytes: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
            bytes.reserveCapacity(2 + data.count * 2)
            for byte in data {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS+00` for an instant in whole UTC seconds.
    public static func utcTimestampText(epochSeconds: Int64) -> String {
        var bytes: [UInt8] = []
        appendUTCTimestamp(epochSeconds: epochSeconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
