import Glibc

/// One string or scalar of a JSON text as the tokenizer hands it over: its raw bytes
/// (a string's bytes between the quotes with escapes not yet decoded; a number, `true`,
/// `false` or `null` as written), valid only during the call that receives it.
struct JSONToken {
    /// The raw bytes, at most the tokenizer's ``JSONTokenizer/maximumStringBytes``.
    var bytes: UnsafeRawBufferPointer
    /// Whether this is a string (else a number, `true`, `false` or `null`).
    var isString: Bool
    /// Whether the string holds escapes (`\n`, `\/`, `\u2019`...).
    var hasEscapes: Bool
    /// The raw length in bytes; more than `bytes.count` when the string was cut at the cap.
    var length: Int

    /// Whether the string was longer than the cap, so `bytes` holds only its start.
    var isCut: Bool { length > bytes.count }

    /// Whether this is the literal `null`.
    var isNull: Bool { !isString && bytes.count == 4 && bytes[0] == UInt8(ascii: "n") }

    /// Whether the raw bytes equal `literal` (an unescaped ASCII name).
    func equals(_ literal: StaticString) -> Bool {
        guard !hasEscapes, !isCut, bytes.count == literal.utf8CodeUnitCount, let base = bytes.baseAddress else {
            return false
        }
        return memcmp(base, literal.utf8Start, bytes.count) == 0
    }
}

/// Receives the structure of a JSON text from ``JSONTokenizer``, in document order.
protocol JSONTokenHandler: AnyObject {
    /// `{` or `[` on `line`.
    func beginContainer(isObject: Bool, line: Int) throws
    /// The matching `}` or `]`.
    func endContainer(isObject: Bool) throws
    /// An object member's name; its value follows.
    func key(_ token: JSONToken) throws
    /// A string or scalar value starting on `line` (a container value arrives as
    /// ``beginContainer(isObject:line:)`` instead).
    func value(_ token: JSONToken, line: Int) throws
}

/// Why a text is not JSON (RFC 8259), with the line the problem is on.
struct JSONSyntaxError: Error, Equatable {
    /// The 1-based line.
    var line: Int
    /// What is wrong, for a person.
    var reason: String
}

/// A JSON (RFC 8259) tokenizer fed in chunks of any size: checks the grammar as bytes
/// arrive and reports containers, names and values to a ``JSONTokenHandler``.
///
/// Memory is bounded whatever the text: it holds the stack of open containers (at most
/// ``maximumDepth``) and, for a token split across two chunks, at most
/// ``maximumStringBytes`` of it (a longer string is handed over cut, with its length).
/// A token inside one chunk is handed over in place, without copying. Work is linear:
/// every byte is looked at once.
final class JSONTokenizer {
    /// The most bytes of one string kept for the handler.
    let maximumStringBytes: Int
    /// The deepest nesting of containers accepted.
    let maximumDepth: Int
    /// The longest number accepted (RFC 8259 sets no limit; real ones are under 30 bytes).
    static let maximumScalarBytes = 1024

    private enum Expectation: UInt8 {
        /// The document's value.
        case rootValue
        /// A value after `:` or `,` in an array.
        case value
        /// A value or `]` after `[`.
        case valueOrEnd
        /// A name or `}` after `{`.
        case keyOrEnd
        /// A name after `,` in an object.
        case key
        /// `:` after a name.
        case colon
        /// `,` or the end of the container after a value.
        case commaOrEnd
        /// Only white space after the document's value.
        case done
    }

    private enum Token: UInt8 {
        case none
        case string
        case scalar
    }

    // The state below is read and written for every token. A tokenizer is confined to the
    // scanning thread and never re-entered (the handler does not call back into it), so
    // Swift's dynamic exclusivity checks on these class properties prove nothing; they
    // took about 40 % of a payload's reading time (measured with perf, release build).
    @exclusivity(unchecked) private var expectation = Expectation.rootValue
    /// Whether each open container is an object, innermost last.
    @exclusivity(unchecked) private var containers: [Bool] = []
    /// The token cut by the end of the previous chunk, if any.
    @exclusivity(unchecked) private var open = Token.none
    @exclusivity(unchecked) private var isOpenTokenKey = false
    @exclusivity(unchecked) private var openTokenLine = 1
    /// The start of a token split across chunks (at most the cap).
    @exclusivity(unchecked) private var pending: [UInt8] = []
    @exclusivity(unchecked) private var pendingLength = 0
    @exclusivity(unchecked) private var pendingHasEscapes = false
    /// Inside a string: 0 outside an escape, -1 after `\`, 1...4 hex digits still due.
    @exclusivity(unchecked) private var escapeState = 0
    /// The current 1-based line.
    @exclusivity(unchecked) private(set) var line = 1

    /// Creates a tokenizer.
    init(maximumStringBytes: Int, maximumDepth: Int) {
        self.maximumStringBytes = max(maximumStringBytes, 1)
        self.maximumDepth = max(maximumDepth, 1)
    }

    /// Whether the document's value is complete (only white space may follow).
    var isComplete: Bool { expectation == .done }

    /// Reads the next bytes.
    func feed<Handler: JSONTokenHandler>(_ bytes: UnsafeRawBufferPointer, to handler: Handler) throws {
        let count = bytes.count
        var index = 0
        switch open {
        case .string: index = try scanString(bytes, from: 0, start: 0, to: handler)
        case .scalar: index = try scanScalar(bytes, from: 0, start: 0, to: handler)
        case .none: break
        }
        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                line += 1
                index += 1
            case UInt8(ascii: "\""):
                switch expectation {
                case .key, .keyOrEnd: isOpenTokenKey = true
                case .rootValue, .value, .valueOrEnd: isOpenTokenKey = false
                default: throw unexpected(byte)
                }
                openTokenLine = line
                index = try scanString(bytes, from: index + 1, start: index + 1, to: handler)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard expectation == .rootValue || expectation == .value || expectation == .valueOrEnd else {
                    throw unexpected(byte)
                }
                guard containers.count < maximumDepth else {
                    throw JSONSyntaxError(line: line, reason: "containers nested deeper than \(maximumDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                containers.append(isObject)
                expectation = isObject ? .keyOrEnd : .valueOrEnd
                try handler.beginContainer(isObject: isObject, line: line)
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = byte == UInt8(ascii: "}")
                let isAllowed =
                    expectation == .commaOrEnd || (isObject ? expectation == .keyOrEnd : expectation == .valueOrEnd)
                guard isAllowed, containers.last == isObject else { throw unexpected(byte) }
                containers.removeLast()
                expectation = containers.isEmpty ? .done : .commaOrEnd
                try handler.endContainer(isObject: isObject)
                index += 1
            case UInt8(ascii: ","):
                guard expectation == .commaOrEnd, let isObject = containers.last else { throw unexpected(byte) }
                expectation = isObject ? .key : .value
                index += 1
            case UInt8(ascii: ":"):
                guard expectation == .colon else { throw unexpected(byte) }
                expectation = .value
                index += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
                UInt8(ascii: "n"):
                guard expectation == .rootValue || expectation == .value || expectation == .valueOrEnd else {
                    throw unexpected(byte)
                }
                openTokenLine = line
                index = try scanScalar(bytes, from: index, start: index, to: handler)
            default:
                throw unexpected(byte)
            }
        }
    }

    /// Ends the text: throws when the document is incomplete.
    func finish<Handler: JSONTokenHandler>(to handler: Handler) throws {
        if open == .scalar {
            try completeScalar(UnsafeRawBufferPointer(start: nil, count: 0), start: 0, end: 0, to: handler)
        }
        if open == .string {
            throw JSONSyntaxError(line: line, reason: "the text ends inside a string")
        }
        switch expectation {
        case .done: return
        case .rootValue: throw JSONSyntaxError(line: line, reason: "no JSON value, only white space")
        default:
            throw JSONSyntaxError(
                line: line,
                reason: "the text ends before its closing \(containers.last == true ? "'}'" : "']'"): it is truncated")
        }
    }

    // MARK: Strings

    /// Scans a string's bytes from `index` (its content starts at `start` in this chunk);
    /// returns the index after its closing quote, or the chunk's end when it goes on.
    private func scanString<Handler: JSONTokenHandler>(
        _ bytes: UnsafeRawBufferPointer, from index: Int, start: Int, to handler: Handler
    ) throws -> Int {
        let count = bytes.count
        var index = index
        var hasEscapes = open == .string ? pendingHasEscapes : false
        while index < count {
            if escapeState != 0 {
                let byte = bytes[index]
                if escapeState < 0 {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        escapeState = 0
                    case UInt8(ascii: "u"):
                        escapeState = 4
                    default:
                        throw JSONSyntaxError(
                            line: line, reason: "an invalid escape \\\(Self.shown(byte)) in a string")
                    }
                } else {
                    guard Self.isHexDigit(byte) else {
                        throw JSONSyntaxError(line: line, reason: "an invalid \\u escape in a string (4 hex digits)")
                    }
                    escapeState -= 1
                }
                index += 1
                continue
            }
            // The run of plain bytes: most of a string.
            while index < count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            guard index < count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                escapeState = -1
                index += 1
                continue
            }
            if byte < 0x20 {
                throw JSONSyntaxError(
                    line: line,
                    reason: "a control character (0x\(String(byte, radix: 16, uppercase: true))) inside a string")
            }
            // The closing quote.
            try completeString(bytes, start: start, end: index, hasEscapes: hasEscapes, to: handler)
            return index + 1
        }
        keepPending(bytes, start: start, end: count)
        pendingHasEscapes = hasEscapes
        open = .string
        return count
    }

    private func completeString<Handler: JSONTokenHandler>(
        _ bytes: UnsafeRawBufferPointer, start: Int, end: Int, hasEscapes: Bool, to handler: Handler
    ) throws {
        let wasOpen = open == .string
        open = .none
        let isKey = isOpenTokenKey
        expectation = isKey ? .colon : (containers.isEmpty ? .done : .commaOrEnd)
        if wasOpen {
            keepPending(bytes, start: start, end: end)
            let length = pendingLength
            defer { clearPending() }
            try pending.withUnsafeBytes { kept in
                let token = JSONToken(bytes: kept, isString: true, hasEscapes: hasEscapes, length: length)
                try isKey ? handler.key(token) : handler.value(token, line: openTokenLine)
            }
        } else {
            let kept = UnsafeRawBufferPointer(rebasing: bytes[start..<min(end, start + maximumStringBytes)])
            let token = JSONToken(bytes: kept, isString: true, hasEscapes: hasEscapes, length: end - start)
            try isKey ? handler.key(token) : handler.value(token, line: openTokenLine)
        }
    }

    // MARK: Numbers, true, false, null

    private func scanScalar<Handler: JSONTokenHandler>(
        _ bytes: UnsafeRawBufferPointer, from index: Int, start: Int, to handler: Handler
    ) throws -> Int {
        let count = bytes.count
        var index = index
        while index < count, Self.isScalarByte(bytes[index]) { index += 1 }
        if index < count {
            try completeScalar(bytes, start: start, end: index, to: handler)
            return index
        }
        keepPending(bytes, start: start, end: count)
        open = .scalar
        if pendingLength > Self.maximumScalarBytes {
            throw JSONSyntaxError(line: line, reason: "a number longer than \(Self.maximumScalarBytes) bytes")
        }
        return count
    }

    private func completeScalar<Handler: JSONTokenHandler>(
        _ bytes: UnsafeRawBufferPointer, start: Int, end: Int, to handler: Handler
    ) throws {
        let wasOpen = open == .scalar
        open = .none
        expectation = containers.isEmpty ? .done : .commaOrEnd
        if wasOpen {
            keepPending(bytes, start: start, end: end)
            defer { clearPending() }
            try pending.withUnsafeBytes { kept in try deliverScalar(kept, to: handler) }
        } else {
            try deliverScalar(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), to: handler)
        }
    }

    private func deliverScalar<Handler: JSONTokenHandler>(_ text: UnsafeRawBufferPointer, to handler: Handler) throws {
        guard text.count <= Self.maximumScalarBytes else {
            throw JSONSyntaxError(line: line, reason: "a number longer than \(Self.maximumScalarBytes) bytes")
        }
        guard Self.isValidScalar(text) else {
            throw JSONSyntaxError(
                line: line,
                reason: "\(DiagnosticText.quoted(String(decoding: text, as: UTF8.self))) is not a JSON value")
        }
        try handler.value(
            JSONToken(bytes: text, isString: false, hasEscapes: false, length: text.count), line: openTokenLine)
    }

    /// `true`, `false`, `null` or a number by RFC 8259's grammar.
    static func isValidScalar(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first, let base = text.baseAddress else { return false }
        switch first {
        case UInt8(ascii: "t"): return text.count == 4 && memcmp(base, "true", 4) == 0
        case UInt8(ascii: "f"): return text.count == 5 && memcmp(base, "false", 5) == 0
        case UInt8(ascii: "n"): return text.count == 4 && memcmp(base, "null", 4) == 0
        default: break
        }
        var index = 0
        let count = text.count
        func digits() -> Int {
            let start = index
            while index < count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
            return index - start
        }
        if index < count, text[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { return false }
        if text[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < count, text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == count
    }

    // MARK: Helpers

    private func keepPending(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) {
        let room = max(0, maximumStringBytes - pending.count)
        let kept = min(room, end - start)
        if kept > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<start + kept])) }
        pendingLength += end - start
    }

    private func clearPending() {
        pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
        pendingLength = 0
        pendingHasEscapes = false
    }

    private func unexpected(_ byte: UInt8) -> JSONSyntaxError {
        let wanted: String
        switch expectation {
        case .rootValue, .value: wanted = "a value"
        case .valueOrEnd: wanted = "a value or ']'"
        case .keyOrEnd: wanted = "a member name in quotes or '}'"
        case .key: wanted = "a member name in quotes"
        case .colon: wanted = "':' after a member name"
        case .commaOrEnd: wanted = containers.last == true ? "',' or '}'" : "',' or ']'"
        case .done: wanted = "nothing after the document's value"
        }
        return JSONSyntaxError(line: line, reason: "\(Self.shown(byte)) where \(wanted) belongs")
    }

    /// A byte for a message: `'x'` when printable ASCII, else `byte 0xFF`.
    static func shown(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    @inline(__always)
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Bytes that may continue a number, `true`, `false` or `null` (checked as a whole at
    /// its end).
    @inline(__always)
    private static func isScalarByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "E")
    }
}
