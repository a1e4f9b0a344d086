import Foundation

/// A JSON encoder that writes bytes as the value's `encode(to:)` runs, instead of building
/// a tree of values first as Foundation's `JSONEncoder` does: the rollup encodes six
/// summaries per user, and `JSONEncoder` was a fifth of the runner's CPU in a nightly
/// refresh; the server writes its JSON responses with it too (`JSONEncoder` was a quarter
/// of its CPU on `GET /api/v1/summary`).
///
/// It produces the same JSON as `JSONEncoder()` with `.withoutEscapingSlashes` and no
/// strategies (the encoding docs/summary-json.md asks for), up to key order and the
/// choice among equivalent string escapes: keys in the order the value encodes them,
/// integers in decimal, floating-point numbers as Swift's shortest round-trip
/// `description` without a trailing `.0`, `nil` from `encodeNil` as `null`, absent
/// optionals left out, and non-finite numbers refused.
///
/// Supported: what synthesized `Codable` conformances and single-value encoders use, that
/// is one keyed, unkeyed or single-value container per value, with nested values passed
/// to `encode(_:)` / `encode(_:forKey:)`. `nestedContainer`, `nestedUnkeyedContainer`,
/// `superEncoder` and asking one encoder for two kinds of container are not: ``encode(_:)``
/// throws ``Unsupported`` for them and callers fall back to `JSONEncoder`. So it does for
/// `Data`, `URL` and `Decimal`, which `JSONEncoder` writes in its own way (base64, the
/// absolute string, a number) rather than through their `encode(to:)`.
/// `codingPath` is not tracked (always empty).
public struct StreamingJSONEncoder {
    /// The value used a container shape (or a type) this encoder does not write.
    public struct Unsupported: Error, CustomStringConvertible {
        /// What was met, for a log.
        public let description: String
    }

    /// Creates an encoder.
    public init() {}

    /// The JSON text of `value`; ``Unsupported`` when `JSONEncoder` must write it instead,
    /// `EncodingError` for a non-finite number.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let sink = Sink()
        sink.bytes.reserveCapacity(4096)
        try sink.write(value)
        if let problem = sink.problem { throw Unsupported(description: problem) }
        return sink.bytes
    }

    /// The JSON text of `value`: this encoder's, or for a value it does not write
    /// (``Unsupported``) Foundation's `JSONEncoder`'s with `.withoutEscapingSlashes`.
    public static func text(of value: some Encodable) throws -> String {
        do {
            return String(decoding: try StreamingJSONEncoder().encode(value), as: UTF8.self)
        } catch is Unsupported {
            return try foundationText(of: value)
        }
    }

    /// The JSON text of `value` as Foundation's `JSONEncoder` writes it with
    /// `.withoutEscapingSlashes` (what ``text(of:)`` falls back to; tests compare the two).
    public static func foundationText(of value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The output buffer and the first unsupported use met, shared by every level.
    final class Sink {
        // Written only by the one thread encoding; unchecked exclusivity keeps the
        // runtime's access tracking (a tenth of the encoder's time) off this hot buffer.
        @exclusivity(unchecked) var bytes: [UInt8] = []
        var problem: String?

        func refuse(_ what: String) {
            if problem == nil { problem = what }
        }

        /// Writes `value` at the current position: one level, closed when its
        /// `encode(to:)` returns.
        func write<Value: Encodable>(_ value: Value) throws {
            if Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self {
                return refuse("\(Value.self), which JSONEncoder writes in a form of its own")
            }
            let level = Level(sink: self)
            try value.encode(to: level)
            switch level.shape {
            case .unopened: bytes.append(contentsOf: "{}".utf8)  // JSONEncoder's output for no container
            case .object: bytes.append(UInt8(ascii: "}"))
            case .array: bytes.append(UInt8(ascii: "]"))
            case .single(let written): if !written { refuse("a single-value container with no value") }
            }
        }

        func writeString(_ text: String) {
            bytes.append(UInt8(ascii: "\""))
            var text = text
            let isPlain = text.withUTF8 { utf8 in
                !utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            }
            if isPlain {
                // Keys and most values: nothing to escape.
                text.withUTF8 { bytes.append(contentsOf: $0) }
                bytes.append(UInt8(ascii: "\""))
                return
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): bytes.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): bytes.append(contentsOf: "\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        func writeInteger(_ value: some BinaryInteger) {
            if let small = Int64(exactly: value) {
                writeInt64(small)
            } else {
                bytes.append(contentsOf: String(value).utf8)
            }
        }

        /// Decimal digits of `value`, written straight into the buffer.
        func writeInt64(_ value: Int64) {
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            var magnitude = value.magnitude
            var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes, enough for 20 digits
            withUnsafeMutableBytes(of: &digits) { buffer in
                var end = buffer.count
                repeat {
                    end -= 1
                    buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                bytes.append(contentsOf: buffer[end...])
            }
        }

        func writeFloat<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [], debugDescription: "\(value) is not valid JSON"))
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        }

        func writeBool(_ value: Bool) {
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        }

        func writeNull() {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// One value being encoded.
    final class Level: Encoder {
        enum Shape: Equatable {
            case unopened, object, array
            case single(written: Bool)
        }

        let sink: Sink
        @exclusivity(unchecked) var shape = Shape.unopened
        /// Elements or members written so far (for the commas).
        @exclusivity(unchecked) var count = 0

        init(sink: Sink) { self.sink = sink }

        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            switch shape {
            case .unopened:
                shape = .object
                sink.bytes.append(UInt8(ascii: "{"))
            case .object: break
            default: sink.refuse("a keyed container after another kind")
            }
            return KeyedEncodingContainer(KeyedContainer<Key>(level: self))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            switch shape {
            case .unopened:
                shape = .array
                sink.bytes.append(UInt8(ascii: "["))
            case .array: break
            default: sink.refuse("an unkeyed container after another kind")
            }
            return UnkeyedContainer(level: self)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            if shape != .unopened { sink.refuse("a single-value container after another container") }
            shape = .single(written: false)
            return SingleContainer(level: self)
        }

        /// Starts the next member (`"key":`) of the open object.
        func beginMember(_ key: some CodingKey) {
            if count > 0 { sink.bytes.append(UInt8(ascii: ",")) }
            count += 1
            sink.writeString(key.stringValue)
            sink.bytes.append(UInt8(ascii: ":"))
        }

        /// Starts the next element of the open array.
        func beginElement() {
            if count > 0 { sink.bytes.append(UInt8(ascii: ",")) }
            count += 1
        }

        /// Checks a single-value container writes one value.
        func beginSingle() {
            if shape != .single(written: false) { sink.refuse("two values in a single-value container") }
            shape = .single(written: true)
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let level: Level
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeNull()
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeBool(value)
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeString(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            level.beginMember(key)
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            level.beginMember(key)
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int8, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int16, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int32, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int64, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt8, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt16, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt32, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            level.beginMember(key)
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            level.beginMember(key)
            try level.sink.write(value)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            level.sink.refuse("nestedContainer(keyedBy:forKey:)")
            return Level(sink: Sink()).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            level.sink.refuse("nestedUnkeyedContainer(forKey:)")
            return Level(sink: Sink()).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            level.sink.refuse("superEncoder()")
            return Level(sink: Sink())
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            level.sink.refuse("superEncoder(forKey:)")
            return Level(sink: Sink())
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let level: Level
        var codingPath: [any CodingKey] { [] }
        var count: Int { level.count }

        mutating func encodeNil() throws {
            level.beginElement()
            level.sink.writeNull()
        }
        mutating func encode(_ value: Bool) throws {
            level.beginElement()
            level.sink.writeBool(value)
        }
        mutating func encode(_ value: String) throws {
            level.beginElement()
            level.sink.writeString(value)
        }
        mutating func encode(_ value: Double) throws {
            level.beginElement()
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Float) throws {
            level.beginElement()
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Int) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int64) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int8) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int16) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int32) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt8) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt16) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt32) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt64) throws {
            level.beginElement()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: some Encodable) throws {
            level.beginElement()
            try level.sink.write(value)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            level.sink.refuse("nestedContainer(keyedBy:)")
            return Level(sink: Sink()).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            level.sink.refuse("nestedUnkeyedContainer()")
            return Level(sink: Sink()).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            level.sink.refuse("superEncoder()")
            return Level(sink: Sink())
        }
    }

    struct SingleContainer: SingleValueEncodingContainer {
        let level: Level
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws {
            level.beginSingle()
            level.sink.writeNull()
        }
        mutating func encode(_ value: Bool) throws {
            level.beginSingle()
            level.sink.writeBool(value)
        }
        mutating func encode(_ value: String) throws {
            level.beginSingle()
            level.sink.writeString(value)
        }
        mutating func encode(_ value: Double) throws {
            level.beginSingle()
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Float) throws {
            level.beginSingle()
            try level.sink.writeFloat(value)
        }
        mutating func encode(_ value: Int) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int64) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int8) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int16) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: Int32) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt8) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt16) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt32) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: UInt64) throws {
            level.beginSingle()
            level.sink.writeInteger(value)
        }
        mutating func encode(_ value: some Encodable) throws {
            level.beginSingle()
            try level.sink.write(value)
        }
    }
}
