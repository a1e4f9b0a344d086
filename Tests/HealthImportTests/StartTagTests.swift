import Testing

@testable import HealthImport

/// The pre-filter reads start tags with a fast reader (double quotes only, `type` first)
/// and falls back to the exact one; for well-formed tags both must agree on where the tag
/// ends, whether it closes itself and where the `type` value lies.
struct StartTagTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let tag: String
        /// Whether the fast reader is expected to answer (no `'`, `type` first when wanted).
        let isFast: Bool
        let isSelfClosing: Bool
        /// The raw `type` value expected when the tag is a `Record`.
        let type: String?
        var testDescription: String { tag }
    }

    static let record = Array("Record".utf8)

    static let cases: [Case] = [
        Case(
            tag: #"<Record type="HKCategoryTypeIdentifierSleepAnalysis" value="x"/>"#, isFast: true,
            isSelfClosing: true, type: "HKCategoryTypeIdentifierSleepAnalysis"),
        Case(
            tag: #"<Record type="A" device="&lt;&lt;HKDevice&gt;&gt;" value="1">"#, isFast: true,
            isSelfClosing: false, type: "A"),
        Case(tag: #"<Record type="A" note="a > b" other="c/>d">"#, isFast: true, isSelfClosing: false, type: "A"),
        Case(tag: #"<Record type="a>b" x="/>"/>"#, isFast: true, isSelfClosing: true, type: "a>b"),
        Case(tag: "<Record\n type=\"A\"\n\tvalue=\"1\"\n/>", isFast: false, isSelfClosing: true, type: "A"),
        Case(tag: #"<Record sourceName="Watch" type="B">"#, isFast: false, isSelfClosing: false, type: "B"),
        Case(tag: #"<Record type='A' value="1"/>"#, isFast: false, isSelfClosing: true, type: "A"),
        Case(tag: #"<Record type="A" sourceName="Anna's Watch">"#, isFast: false, isSelfClosing: false, type: "A"),
        Case(tag: #"<Record type="A" value = "x>y" />"#, isFast: true, isSelfClosing: true, type: "A"),
        Case(
            tag: #"<Record type="HKCategoryTypeIdentifier&#83;leepAnalysis"/>"#, isFast: true,
            isSelfClosing: true, type: "HKCategoryTypeIdentifier&#83;leepAnalysis"),
        Case(tag: "<Record>", isFast: false, isSelfClosing: false, type: nil),
        Case(tag: "<Record/>", isFast: false, isSelfClosing: true, type: nil),
        Case(
            tag: #"<MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>"#, isFast: true, isSelfClosing: true,
            type: nil),
        Case(tag: #"<Workout a="1" b="x > y">"#, isFast: true, isSelfClosing: false, type: nil),
        Case(tag: "<HealthData locale=\"en_US\">", isFast: true, isSelfClosing: false, type: nil),
    ]

    @Test(arguments: cases)
    func fastAndExactReadersAgree(_ example: Case) throws {
        // Bytes after the tag must not be read: text holding quotes and `>` follows it.
        let bytes = Array((example.tag + #" text " with > and ' after"#).utf8)
        try bytes.withUnsafeBytes { buffer in
            let tag = try #require(StartTag(buffer, at: 0, wantsTypeOf: Self.record))
            let exact = try #require(StartTag(exact: buffer, at: 0, wantsTypeOf: Self.record))
            #expect(tag.isExact == !example.isFast)
            #expect(exact.isExact)
            #expect(!exact.isMalformed)
            for reading in [tag, exact] {
                #expect(reading.end == example.tag.utf8.count)
                #expect(reading.isSelfClosing == example.isSelfClosing)
                let type = reading.typeRange.map {
                    String(decoding: UnsafeRawBufferPointer(rebasing: buffer[$0]), as: UTF8.self)
                }
                #expect(type == (example.tag.hasPrefix("<Record") ? example.type : nil))
            }
        }
    }

    @Test(
        "a tag cut off before its end asks for more bytes",
        arguments: [
            #"<Record type="A" value="1""#, #"<Record type="A"#, #"<Record type="A" v="a>b"#, "<Reco",
        ])
    func unfinishedTagNeedsMoreBytes(_ text: String) {
        Array(text.utf8).withUnsafeBytes { buffer in
            #expect(StartTag(buffer, at: 0, wantsTypeOf: Self.record) == nil)
        }
    }

    @Test("quote parity counts across the 16-byte blocks and the tail")
    func quoteParity() {
        for length in 0..<70 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = UInt8(ascii: "\"")
                bytes.withUnsafeBytes { buffer in
                    let parity = StartTag.quoteParity(buffer, from: 0, to: length)
                    #expect(parity.isOdd && !parity.hasSingle, "length \(length), quote at \(position)")
                }
                bytes[length - 1 - position] = UInt8(ascii: "'")
                bytes.withUnsafeBytes { buffer in
                    let parity = StartTag.quoteParity(buffer, from: 0, to: length)
                    #expect(parity.hasSingle, "length \(length), single quote at \(length - 1 - position)")
                }
            }
        }
    }
}
