/// Reads `HKTimeZone` from a CSV column holding a record's metadata, in the forms
/// converters write:
///
/// - a JSON or Python object: `{"HKTimeZone": "Europe/Paris", "HKWasUserEntered": 0}`,
///   `{'HKTimeZone': 'Europe/Paris'}`;
/// - a list of key/value entries, JSON or Python (the `MetadataEntry` children of a
///   flattened `Record`, e.g. in a `sub_children` column):
///   `[{'key': 'HKTimeZone', 'value': 'Europe/Amsterdam'}]`;
/// - `KEY=VALUE` pairs separated by `;`, `,` or line breaks:
///   `HKWasUserEntered=0; HKTimeZone=America/New_York`.
///
/// Objects and lists may nest (the entry is looked for at any level, up to
/// ``maximumDepth``). Python's `True`, `None`, numbers and `u'...'` strings are read as
/// plain words. Anything else is ``Outcome/unreadable``, which the reader reports as a
/// warning rather than ignoring.
enum CSVMetadata {
    /// What a metadata text says about the time zone.
    enum Outcome: Equatable {
        /// It holds `HKTimeZone` with this (non-empty) value.
        case timeZone(String)
        /// It was read and holds no `HKTimeZone`.
        case noTimeZone
        /// It is in none of the forms read, or its `HKTimeZone` is not a text.
        case unreadable
    }

    /// The deepest nesting of objects and lists read.
    static let maximumDepth = 16

    /// Reads `text` (one field, already unquoted from the CSV).
    static func timeZone(in text: String) -> Outcome {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, ByteSearch.isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count else { return .noTimeZone }
        let lead = bytes[index]
        guard lead == UInt8(ascii: "{") || lead == UInt8(ascii: "[") || lead == UInt8(ascii: "(") else {
            return pairs(text)
        }
        var parser = LiteralParser(bytes: bytes, index: index)
        guard let literal = parser.value(depth: 0), parser.isAtEnd else { return .unreadable }
        return find(in: literal)
    }

    /// `KEY=VALUE` pairs; every non-empty part must have a key and `=`.
    private static func pairs(_ text: String) -> Outcome {
        var zone: String?
        for part in text.split(whereSeparator: { $0 == ";" || $0 == "," || $0 == "\n" || $0 == "\r" }) {
            let trimmed = part.trimmingSpaces
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return .unreadable }
            let key = trimmed[..<equals].trimmingSpaces
            let isKey = !key.isEmpty && key.unicodeScalars.allSatisfy { LiteralParser.isWordScalar($0) }
            guard isKey else { return .unreadable }
            if zone == nil, key == "HKTimeZone" {
                var value = trimmed[trimmed.index(after: equals)...].trimmingSpaces
                if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                    value = value.dropFirst().dropLast()
                }
                zone = String(value)
            }
        }
        guard let zone, !zone.isEmpty else { return .noTimeZone }
        return .timeZone(zone)
    }

    /// The first `HKTimeZone` in a literal: an object member named `HKTimeZone`, or an
    /// object `{key: "HKTimeZone", value: ...}`; objects and lists are searched in order.
    private static func find(in literal: Literal) -> Outcome {
        switch literal {
        case .word, .text:
            return .noTimeZone
        case .list(let elements):
            for element in elements {
                let found = find(in: element)
                if found != .noTimeZone { return found }
            }
            return .noTimeZone
        case .object(let members):
            for member in members where member.key.word == "HKTimeZone" {
                return zone(member.value)
            }
            let isEntry = members.contains { $0.key.word?.lowercased() == "key" && $0.value.word == "HKTimeZone" }
            if isEntry, let value = members.first(where: { $0.key.word?.lowercased() == "value" }) {
                return zone(value.value)
            }
            for member in members {
                let found = find(in: member.value)
                if found != .noTimeZone { return found }
            }
            return .noTimeZone
        }
    }

    private static func zone(_ value: Literal) -> Outcome {
        guard case .text(let text) = value else {
            if case .word(let word) = value, word == "None" || word == "null" { return .noTimeZone }
            return .unreadable
        }
        let trimmed = String(Substring(text).trimmingSpaces)
        return trimmed.isEmpty ? .noTimeZone : .timeZone(trimmed)
    }
}

/// A JSON or Python literal: a quoted text, a bare word (a number, `True`, `null`...), a
/// list (or tuple) or an object (dict), members in order.
private indirect enum Literal {
    case text(String)
    case word(String)
    case list([Literal])
    case object([(key: Literal, value: Literal)])

    /// The text of a quoted text or a bare word.
    var word: String? {
        switch self {
        case .text(let text), .word(let text): return text
        default: return nil
        }
    }
}

/// Reads one ``Literal`` from UTF-8 bytes; `nil` when they are not one.
private struct LiteralParser {
    let bytes: [UInt8]
    var index: Int

    var isAtEnd: Bool {
        mutating get {
            skipSpaces()
            return index == bytes.count
        }
    }

    mutating func value(depth: Int) -> Literal? {
        guard depth < CSVMetadata.maximumDepth else { return nil }
        skipSpaces()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: Literal, value: Literal)] = []
            while true {
                skipSpaces()
                if take(UInt8(ascii: "}")) { return .object(members) }
                guard let key = value(depth: depth + 1) else { return nil }
                skipSpaces()
                guard take(UInt8(ascii: ":")), let member = value(depth: depth + 1) else { return nil }
                members.append((key, member))
                skipSpaces()
                if take(UInt8(ascii: "}")) { return .object(members) }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        case UInt8(ascii: "["), UInt8(ascii: "("):
            let close = bytes[index] == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: ")")
            index += 1
            var elements: [Literal] = []
            while true {
                skipSpaces()
                if take(close) { return .list(elements) }
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpaces()
                if take(close) { return .list(elements) }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return quoted()
        default:
            return word()
        }
    }

    /// Whether a character may be part of a bare word or a `KEY` of `KEY=VALUE`: ASCII
    /// letters, digits, `_`, `.`, `-` and `+`.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let byte = UInt8(scalar.value)
        return (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "+")
    }

    /// A bare word, or a Python string with a `u`, `r` or `b` prefix.
    private mutating func word() -> Literal? {
        let start = index
        while index < bytes.count, Self.isWordScalar(Unicode.Scalar(bytes[index])) {
            index += 1
        }
        guard index > start else { return nil }
        let isPrefix =
            index - start == 1 && [UInt8(ascii: "u"), UInt8(ascii: "r"), UInt8(ascii: "b")].contains(bytes[start])
        if isPrefix, index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            return quoted()
        }
        return .word(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// A text in `"` or `'` with backslash escapes (`\n`, `\t`, `\uXXXX`; any other
    /// escaped character stands for itself).
    private mutating func quoted() -> Literal? {
        let quote = bytes[index]
        index += 1
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == quote { return .text(String(decoding: text, as: UTF8.self)) }
            guard byte == UInt8(ascii: "\\") else {
                text.append(byte)
                continue
            }
            guard index < bytes.count else { return nil }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count,
                    let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                else { return nil }
                // A surrogate half (an escaped character outside the BMP) becomes U+FFFD:
                // only HKTimeZone's value is used, and zone names are ASCII.
                let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                text.append(contentsOf: Array(String(Character(scalar)).utf8))
                index += 4
            default: text.append(escaped)
            }
        }
        return nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpaces() {
        while index < bytes.count, ByteSearch.isSpace(bytes[index]) { index += 1 }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
