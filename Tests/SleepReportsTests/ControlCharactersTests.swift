import SleepReports
import Testing

/// The one rule of docs/cli.md ("Values from inputs never drive the terminal"): C0 controls
/// become the Control Pictures U+2400–U+241F, DEL becomes `␡`, C1 controls and the
/// bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) become
/// `�`; only layout keeps its newlines and tabs.
@Suite("ControlCharacters")
struct ControlCharactersTests {
    /// Every scalar the rule names, and nothing else.
    static let controls: [UInt32] =
        Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E)
        + Array(0x2066...0x2069)

    @Test(
        "text values: every control has a visible stand-in, the layout's newlines and tabs stay only in layout",
        arguments: [
            ("\u{1B}]8;;u\u{1B}\\", false, "␛]8;;u␛\\"), ("a\u{00}b\u{1F}", false, "a␀b␟"), ("x\u{7F}", false, "x␡"),
            ("\u{07}", false, "␇"), ("\u{85}\u{9F}", false, "��"), ("\u{202E}\u{2066}\u{200F}", false, "���"),
            ("\u{061C}\u{200E}\u{202A}\u{2069}", false, "����"), ("a\nb\tc\r\n", false, "a␊b␉c␍␊"),
            ("a\nb\tc\r\n", true, "a\nb\tc\r\n"), ("a\rb", true, "a␍b"), ("a\r", true, "a␍"),
            ("plain — ünïcode 🛌", false, "plain — ünïcode 🛌"), ("", false, ""),
        ])
    func replacing(value: String, keepingLayout: Bool, expected: String) {
        #expect(ControlCharacters.replacing(in: value, keepingLayout: keepingLayout) == expected)
    }

    @Test("every control scalar is replaced wherever it stands; its neighbours in UTF-8 are kept")
    func everyControlScalar() throws {
        for value in Self.controls {
            let scalar = try #require(Unicode.Scalar(value))
            #expect(ControlCharacters.isControl(scalar), "U+\(String(value, radix: 16))")
            for text in ["\(scalar)", "a\(scalar)", "\(scalar)b", "a’\(scalar)’b"] {
                #expect(ControlCharacters.mayHoldControls(text, keepingLayout: false), "U+\(String(value, radix: 16))")
                let replaced = ControlCharacters.replacing(in: text, keepingLayout: false)
                #expect(!replaced.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16))")
                #expect(replaced.unicodeScalars.count == text.unicodeScalars.count)
            }
        }
        // Scalars sharing lead bytes with controls, and ordinary text, stay.
        let neighbours = "\u{A0}\u{BF}é\u{061B}\u{061D}\u{200D}\u{2010}\u{2019}\u{2029}\u{202F}\u{2065}\u{206A}€"
        #expect(!ControlCharacters.mayHoldControls(neighbours, keepingLayout: false))
        #expect(ControlCharacters.replacing(in: neighbours, keepingLayout: false) == neighbours)
        #expect(neighbours.unicodeScalars.allSatisfy { !ControlCharacters.isControl($0) })
    }

    @Test(
        "the stand-ins: Control Pictures for C0, ␡ for DEL, � for C1 and the bidirectional controls",
        arguments: [
            (UInt32(0x00), UInt32(0x2400)), (0x09, 0x2409), (0x0A, 0x240A), (0x1B, 0x241B), (0x1F, 0x241F),
            (0x7F, 0x2421), (0x80, 0xFFFD), (0x9F, 0xFFFD), (0x061C, 0xFFFD), (0x202E, 0xFFFD), (0x2066, 0xFFFD),
        ])
    func standIn(control: UInt32, standIn: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(control))
        #expect(ControlCharacters.standIn(for: scalar).value == standIn)
    }

    @Test("layout: only newlines and tabs make text with them need no replacing")
    func layoutOnly() {
        #expect(!ControlCharacters.mayHoldControls("a\nb\tc", keepingLayout: true))
        #expect(ControlCharacters.mayHoldControls("a\nb\tc", keepingLayout: false))
        #expect(ControlCharacters.mayHoldControls("a\rb", keepingLayout: true))
    }
}
