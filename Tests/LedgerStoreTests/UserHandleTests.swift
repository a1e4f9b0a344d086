import LedgerStore
import Testing

/// The handle rule: stored in NFC, unique and looked up by the canonical caseless key
/// (NFD, full case folding, NFC), the same whatever the database's locale.
@Suite("Handle keys")
struct UserHandleTests {
    @Test(
        "handles that are one user, and look-alikes that are two",
        arguments: [
            ("Åsa", "åsa", true),
            ("Åsa", "ÅSA", true),
            ("A\u{30A}sa", "åsa", true),  // NFD Å
            ("\u{212B}sa", "åsa", true),  // ANGSTROM SIGN, canonically Å
            ("jos\u{E9}", "jose\u{301}", true),  // josé NFC and NFD
            ("JOSE\u{301}", "josé", true),
            ("Straße", "STRASSE", true),  // ß folds to ss
            ("straße", "strasse", true),
            ("\u{1E9E}", "ss", true),  // capital sharp s
            ("ΣΟΦΟΣ", "σοφος", true),  // final sigma folds to sigma
            ("σοφοσ", "σοφος", true),
            ("ǅ", "ǆ", true),  // title-case digraph
            ("\u{FB01}x", "fix", true),  // the fi ligature folds to f, i
            ("Ꭰ", "ꭰ", true),  // Cherokee
            ("ᾂ", "ἂι", true),  // ypogegrammeni folds to iota
            ("\u{212A}elvin", "kelvin", true),  // KELVIN SIGN
            ("İsa", "i\u{307}sa", true),  // dotted capital I folds to i + combining dot
            ("İsa", "isa", false),  // ... so it is not plain i (no Turkish rule)
            ("İsa", "Isa", false),
            ("ısa", "isa", false),  // dotless i stays itself
            ("ısa", "Isa", false),
            ("ａnna", "anna", false),  // full-width a: a compatibility form, kept apart
            ("anna", "anna.b", false),
            ("😀", "😀", true),
            ("😀", "😃", false),
        ])
    func sameUser(first: String, second: String, isSameUser: Bool) throws {
        #expect((try UserHandle.key(first) == UserHandle.key(second)) == isSameUser)
    }

    @Test(
        "keys and display forms, exactly",
        arguments: [
            ("Anna", "Anna", "anna"),
            ("A\u{30A}sa", "Åsa", "åsa"),
            ("jose\u{301}", "jos\u{E9}", "jos\u{E9}"),
            ("Straße", "Straße", "strasse"),
            ("İsa", "İsa", "i\u{307}sa"),
            ("ΣΟΦΟΣ", "ΣΟΦΟΣ", "σοφοσ"),
            ("\u{212A}", "K", "k"),
            ("q\u{303}", "q\u{303}", "q\u{303}"),  // no precomposed form: two code points stay
            ("", "", ""),
        ])
    func forms(typed: String, display: String, key: String) throws {
        #expect(try UserHandle.displayForm(typed).unicodeScalars.elementsEqual(display.unicodeScalars))
        #expect(try UserHandle.key(typed).unicodeScalars.elementsEqual(key.unicodeScalars))
        // A key is its own key, and the display form has the handle's key.
        #expect(try UserHandle.key(UserHandle.key(typed)) == UserHandle.key(typed))
        #expect(try UserHandle.key(UserHandle.displayForm(typed)) == UserHandle.key(typed))
    }

    @Test("long text is transformed whole, also where a step grows it past three times its length")
    func longText() throws {
        // The ffi ligature folds to three letters.
        #expect(try UserHandle.key(String(repeating: "\u{FB03}", count: 5000)) == String(repeating: "ffi", count: 5000))
        // ᾂ decomposes into four code points (more than the first buffer holds), folds its
        // ypogegrammeni to ι and composes again: ἂ then ι.
        #expect(
            try UserHandle.key(String(repeating: "ᾂ", count: 5000)) == String(repeating: "\u{1F02}\u{3B9}", count: 5000)
        )
        #expect(
            try UserHandle.displayForm(String(repeating: "e\u{301}", count: 5000))
                == String(repeating: "é", count: 5000))
    }

    @Test("ICU's Unicode data is at least version 15")
    func unicodeVersion() {
        #expect((Int(UserHandle.unicodeVersion.split(separator: ".").first ?? "") ?? 0) >= 15)
    }
}
