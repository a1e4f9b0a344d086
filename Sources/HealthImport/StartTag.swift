/// One XML start tag read from raw bytes: its name, where it ends, whether it closes
/// itself and, for the element asked about, where its `type` attribute value lies.
///
/// Two readers give the same answer for well-formed XML. ``init(_:at:wantsTypeOf:)``
/// first tries the fast one, made for the tags of an export (every value in double
/// quotes, `type` first on a `Record`): it reads the name and, when wanted, a leading
/// `type="..."`, then finds the end as the first `>` with an even number of `"` before
/// it, counting quotes a machine word at a time. A `'` anywhere in the tag sends it to
/// the exact reader, which walks every attribute (values skipped with `memchr` for their
/// closing quote), so `>` or any text inside a value never ends the tag early either way.
/// Only the exact reader judges whether the attributes are well-formed
/// (``isMalformed``); ``isExact`` says which reader answered.
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
    /// Always `false` from the fast reader, which does not look.
    var isMalformed: Bool
    /// Whether the exact reader (every attribute walked) produced this value.
    var isExact: Bool

    /// Reads the tag starting at `open` (the `<`), fast when it can. Returns `nil` when
    /// the buffer ends before the tag does. `wantsTypeOf` names the element whose `type`
    /// is wanted.
    init?(_ buffer: UnsafeRawBufferPointer, at open: Int, wantsTypeOf wantedName: [UInt8]?) {
        switch Self.fast(buffer, at: open, wantsTypeOf: wantedName) {
        case .tag(let tag): self = tag
        case .needsMoreBytes: return nil
        case .needsExactReader: self.init(exact: buffer, at: open, wantsTypeOf: wantedName)
        }
    }

    private enum FastResult {
        case tag(StartTag)
        case needsMoreBytes
        case needsExactReader
    }

    private static let typeAttributeOpen = Array(" type=\"".utf8)

    /// The fast reader: name, a leading ` type="..."` when wanted, then the first `>`
    /// after an even number of `"`. Gives up (``FastResult/needsExactReader``) at a `'`,
    /// or when the wanted element does not start with ` type="`.
    private static func fast(_ buffer: UnsafeRawBufferPointer, at open: Int, wantsTypeOf wantedName: [UInt8]?)
        -> FastResult
    {
        let count = buffer.count
        guard var index = nameEnd(buffer, at: open) else { return .needsMoreBytes }
        let nameRange = (open + 1)..<index
        let isTypeWanted =
            wantedName.map { ByteSearch.equals($0, in: buffer, from: open + 1, to: index) } ?? false
        var typeRange: Range<Int>?
        if isTypeWanted {
            guard let hasType = ByteSearch.hasPrefix(typeAttributeOpen, in: buffer, at: index) else {
                return .needsMoreBytes
            }
            guard hasType else { return .needsExactReader }
            let valueStart = index + typeAttributeOpen.count
            guard let close = ByteSearch.first(UInt8(ascii: "\""), in: buffer, from: valueStart, to: count) else {
                return .needsMoreBytes
            }
            typeRange = valueStart..<close
            index = close + 1
        }
        // Outside every value exactly when an even number of double quotes lies behind.
        var isInsideValue = false
        while true {
            guard let close = ByteSearch.first(UInt8(ascii: ">"), in: buffer, from: index, to: count) else {
                return .needsMoreBytes
            }
            let quotes = quoteParity(buffer, from: index, to: close)
            if quotes.hasSingle { return .needsExactReader }
            if quotes.isOdd { isInsideValue.toggle() }
            if !isInsideValue {
                let isSelfClosing = close > nameRange.upperBound && buffer[close - 1] == UInt8(ascii: "/")
                return .tag(
                    StartTag(
                        nameRange: nameRange, end: close + 1, isSelfClosing: isSelfClosing,
                        isTypeWanted: isTypeWanted, typeRange: typeRange, isMalformed: false, isExact: false))
            }
            index = close + 1
        }
    }

    /// Whether `buffer[from..<to]` holds an odd number of `"`, and whether it holds any
    /// `'`; sixteen bytes at a time (per-lane counts wrap at 256, which keeps parity).
    @inline(__always)
    static func quoteParity(_ buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> (isOdd: Bool, hasSingle: Bool) {
        let doubleQuote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let singleQuote = SIMD16<UInt8>(repeating: UInt8(ascii: "'"))
        let one = SIMD16<UInt8>(repeating: 1)
        var doubleCounts = SIMD16<UInt8>(repeating: 0)
        var singleSeen = SIMD16<UInt8>(repeating: 0)
        var index = from
        while index + 16 <= to {
            let bytes = buffer.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            doubleCounts &+= one.replacing(with: 0, where: bytes .!= doubleQuote)
            singleSeen |= one.replacing(with: 0, where: bytes .!= singleQuote)
            index += 16
        }
        var isOdd = doubleCounts.wrappedSum() & 1 == 1
        // Lanes hold 0 or 1, so the sum cannot wrap (a lane-wise `!=` would loop).
        var hasSingle = singleSeen.wrappedSum() != 0
        while index < to {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") { isOdd.toggle() } else if byte == UInt8(ascii: "'") { hasSingle = true }
            index += 1
        }
        return (isOdd, hasSingle)
    }

    private init(
        nameRange: Range<Int>, end: Int, isSelfClosing: Bool, isTypeWanted: Bool, typeRange: Range<Int>?,
        isMalformed: Bool, isExact: Bool
    ) {
        self.nameRange = nameRange
        self.end = end
        self.isSelfClosing = isSelfClosing
        self.isTypeWanted = isTypeWanted
        self.typeRange = typeRange
        self.isMalformed = isMalformed
        self.isExact = isExact
    }

    /// Index of the byte ending the element name of the tag at `open` (white space, `>`
    /// or `/`), or `nil` when the buffer ends first.
    private static func nameEnd(_ buffer: UnsafeRawBufferPointer, at open: Int) -> Int? {
        var index = open + 1
        while index < buffer.count {
            let byte = buffer[index]
            // Every byte that can end a name is at most ">" (0x3E); letters are above.
            if byte <= 0x3E, ByteSearch.isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The exact reader: walks every attribute. Returns `nil` when the buffer ends before
    /// the tag does. `wantsTypeOf` names the element whose `type` is wanted.
    init?(exact buffer: UnsafeRawBufferPointer, at open: Int, wantsTypeOf wantedName: [UInt8]?) {
        let count = buffer.count
        guard var index = Self.nameEnd(buffer, at: open) else { return nil }
        nameRange = (open + 1)..<index
        isTypeWanted =
            wantedName.map {
                ByteSearch.equals($0, in: buffer, from: open + 1, to: index)
            } ?? false
        typeRange = nil
        isMalformed = false
        isExact = true
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
