import CLibPQ

/// One row of a result in PostgreSQL's binary format, read in place from libpq's buffer
/// (valid only inside the callback that receives it). Each reader checks the value's
/// length and throws ``PostgresError/Kind/decodingFailed`` on anything unexpected; `nil`
/// means SQL NULL.
///
/// Formats (PostgreSQL's `*send` functions, big-endian): `integer` 4 bytes,
/// `double precision` IEEE 754 in 8, `boolean` 1, `date` days since 2000-01-01 in 4,
/// `timestamptz` microseconds since 2000-01-01 UTC in 8, `text` its UTF-8 bytes, `jsonb` a
/// version byte (1) then the JSON text, arrays a header (dimensions, NULL flag, element
/// type) and each element as a length and its bytes.
public struct BinaryRow {
    let result: OpaquePointer
    let row: Int32
    /// The statement label used in errors.
    public let statement: String?

    /// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates and instants.
    static let postgresEpochDays: Int64 = 10_957

    /// The raw bytes of `column`, or `nil` for NULL.
    public func bytes(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard PQgetisnull(result, row, column) == 0 else { return nil }
        let length = Int(PQgetlength(result, row, column))
        return UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)
    }

    private func fixed(_ column: Int32, _ size: Int, _ type: String) throws -> UnsafeRawBufferPointer? {
        guard let value = bytes(column) else { return nil }
        guard value.count == size else { throw malformed(column, type) }
        return value
    }

    /// The error for a value of `column` that is not in the binary form of `type`.
    public func malformed(_ column: Int32, _ type: String) -> PostgresError {
        PostgresError(
            .decodingFailed, "column \(column) is not a binary \(type) value", statement: statement)
    }

    /// An `integer` column.
    public func int32(_ column: Int32) throws -> Int32? {
        try fixed(column, 4, "integer").map { Int32(bigEndian: $0.loadUnaligned(as: Int32.self)) }
    }

    /// A `double precision` column.
    public func double(_ column: Int32) throws -> Double? {
        try fixed(column, 8, "double precision").map {
            Double(bitPattern: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)))
        }
    }

    /// A `boolean` column.
    public func bool(_ column: Int32) throws -> Bool? {
        try fixed(column, 1, "boolean").map { $0[0] != 0 }
    }

    /// A `date` column.
    public func date(_ column: Int32) throws -> PostgresDate? {
        guard let days = try fixed(column, 4, "date").map({ Int32(bigEndian: $0.loadUnaligned(as: Int32.self)) })
        else { return nil }
        // ±infinity are Int32.min and Int32.max.
        guard days != Int32.min, days != Int32.max else { throw malformed(column, "finite date") }
        return PostgresDate(daysSince1970: Int(Int64(days) + Self.postgresEpochDays))
    }

    /// A `timestamptz` column as whole epoch seconds (rounded down).
    public func epochSeconds(_ column: Int32) throws -> Int64? {
        guard
            let micros = try fixed(column, 8, "timestamptz").map({ Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) })
        else { return nil }
        guard micros != Int64.min, micros != Int64.max else { throw malformed(column, "finite timestamptz") }
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return seconds + Self.postgresEpochDays * 86_400
    }

    /// A `text` column.
    public func string(_ column: Int32) -> String? {
        bytes(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A `jsonb` column's JSON text.
    public func jsonText(_ column: Int32) throws -> String? {
        guard let value = bytes(column) else { return nil }
        guard value.count >= 1, value[0] == 1 else { throw malformed(column, "jsonb") }
        return String(decoding: UnsafeRawBufferPointer(rebasing: value[1...]), as: UTF8.self)
    }

    /// A one-dimensional array column without NULL elements (an empty array has no
    /// dimensions), each element's bytes handed to `element` in order.
    public func arrayElements(_ column: Int32, _ element: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard let value = bytes(column) else { return false }
        func int32(at offset: Int) throws -> Int32 {
            guard offset + 4 <= value.count else { throw malformed(column, "array") }
            return Int32(bigEndian: value.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        }
        let dimensions = try int32(at: 0)
        guard dimensions == 0 || dimensions == 1, try int32(at: 4) == 0 else { throw malformed(column, "array") }
        guard dimensions == 1 else { return true }
        let count = try int32(at: 12)
        var offset = 20
        for _ in 0..<max(0, count) {
            let length = Int(try int32(at: offset))
            offset += 4
            guard length >= 0, offset + length <= value.count else { throw malformed(column, "array") }
            try element(UnsafeRawBufferPointer(rebasing: value[offset..<(offset + length)]))
            offset += length
        }
        guard offset == value.count else { throw malformed(column, "array") }
        return true
    }
}
