/// One XML start tag read from raw bytes: its name, where it ends, whether it closes
/// itself and, for the element asked about, where its `type` attribute value lies.
///
/// Attribute values are skipped with `memchr` for their closing quote, so `>` or any
/// text inside a value never ends the tag early.
struct StartTag {
    /// Window indices of the element name.
    var nameRange: Range<Int>
    /// Index just after the closing `>`.
    var end: Int
    /// Whether the tag ends with `/>`.
    var isSelfClosing: Bool
    /// Whether the caller asked for this element's `type` (the name matched).
    var isTypeWanted: Bool
    /// Raw bytes of the first `type` attribute value, when asked for and present.
    var typeRange: Range<Int>?
    /// Whether something other than `name="value"` pairs was met (not well-formed).
    var isMalformed: Bool

    /// Reads the tag starting at `open` (the `<`). Returns `nil` when the buffer ends
    /// before the tag does. `wantsTypeOf` names the element whose `type` is wanted.
    init?(_ buffer: UnsafeRawBufferPointer, at open: Int, wantsTypeOf wantedName: [UInt8]?) {
        let count = buffer.count
        var index = open + 1
        while index < count {
            let byte = buffer[index]
            // Every byte that can end a name is at most ">" (0x3E); letters are above.
            if byte > 0x3E {
                index += 1
                continue
            }
            if ByteSearch.isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                break
            }
            index += 1
        }
        guard index < count else { return nil }
        nameRange = (open + 1)..<index
        isTypeWanted =
            wantedName.map {
                ByteSearch.equals($0, in: buffer, from: open + 1, to: index)
            } ?? false
        typeRange = nil
        isMalformed = false
        isSelfClosing = false
        end = count
        while true {
            while index < count, ByteSearch.isSpace(buffer[index]) { index += 1 }
            guard index < count else { return nil }
            let byte = buffer[index]
            if byte == UInt8(ascii: ">") {
                end = index + 1
                return
            }
            if byte == UInt8(ascii: "/") {
                guard index + 1 < count else { return nil }
                if buffer[index + 1] == UInt8(ascii: ">") {
                    isSelfClosing = true
                    end = index + 2
                    return
                }
                isMalformed = true
                index += 1
                continue
            }
            // Attribute name.
            let nameStart = index
            while index < count {
                let current = buffer[index]
                if current > 0x3E {
                    index += 1
                    continue
                }
                if current == UInt8(ascii: "=") || ByteSearch.isSpace(current)
                    || current == UInt8(ascii: ">")
                    || current == UInt8(ascii: "/") || current == UInt8(ascii: "\"")
                    || current == UInt8(ascii: "'")
                {
                    break
                }
                index += 1
            }
            let nameEnd = index
            while index < count, ByteSearch.isSpace(buffer[index]) { index += 1 }
            guard index < count else { return nil }
            guard buffer[index] == UInt8(ascii: "=") else {
                isMalformed = true
                if nameEnd == nameStart && index == nameStart { index += 1 }
                continue
            }
            index += 1
            while index < count, ByteSearch.isSpace(buffer[index]) { index += 1 }
            guard index < count else { return nil }
            let quote = buffer[index]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                isMalformed = true
                continue
            }
            guard let close = ByteSearch.first(quote, in: buffer, from: index + 1, to: count) else {
                return nil
            }
            if isTypeWanted, typeRange == nil, Self.isTypeName(buffer, from: nameStart, to: nameEnd) {
                typeRange = (index + 1)..<close
            }
            index = close + 1
        }
    }

    /// Whether `buffer[from..<to]` is `type`.
    @inline(__always)
    private static func isTypeName(_ buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Bool {
        to - from == 4 && buffer[from] == UInt8(ascii: "t") && buffer[from + 1] == UInt8(ascii: "y")
            && buffer[from + 2] == UInt8(ascii: "p") && buffer[from + 3] == UInt8(ascii: "e")
    }
}
