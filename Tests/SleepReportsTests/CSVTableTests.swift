import SleepReports
import Testing

/// CSV as docs/cli.md ("Values from inputs never drive the terminal", CSV) and docs/admin.md
/// ("Text, colour, bars") describe it: RFC 4180 with a header row and CRLF line ends, the
/// terminal's stand-ins for controls except a newline inside a cell, and a leading `'` on a
/// cell a spreadsheet would run as a formula unless the whole cell is a plain number.
@Suite("CSVTable")
struct CSVTableTests {
    @Test(
        "a cell: formulas get a quote, numbers stay numbers, controls are replaced, quoting when needed",
        arguments: [
            ("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""), ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("-1.5", "-1.5"), ("42", "42"), ("+3", "+3"),
            ("-2e-3", "-2e-3"), (".5", ".5"), ("-", "'-"), ("-.", "'-."), ("1e", "1e"), ("a=b", "a=b"),
            ("\u{1B}[2J", "␛[2J"), ("\t=1", "␉=1"), ("two\nlines", "\"two\nlines\""), ("cr\r", "cr␍"),
            ("\u{9B}0m", "�0m"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("Anna's Watch", "Anna's Watch"), ("=1\n=2", "\"'=1\n=2\""), ("\u{202E}evil", "�evil"),
        ])
    func field(value: String, expected: String) {
        #expect(CSVTable.field(value) == expected)
    }

    @Test(
        "a plain decimal number: optional sign, digits with an optional fraction, an optional exponent",
        arguments: [
            ("0", true), ("42", true), ("-1.5", true), ("+3", true), ("-2e-3", true), ("1E+9", true), (".5", true),
            ("", false), ("-", false), ("+", false), (".", false), ("-.", false), ("1e", false),
            ("1e+", false), ("e5", false), ("1.2.3", false), ("1,5", false), (" 1", false), ("1 ", false),
            ("0x1F", false), ("--1", false), ("١٢", false), ("1e5.5", false),
        ])
    func number(text: String, isNumber: Bool) {
        #expect(CSVTable.isNumber(text) == isNumber)
    }

    @Test("the table: the header, then every row, each line ending in CRLF, every cell neutralised")
    func rendered() {
        var table = CSVTable(header: ["source", "asleep_seconds"])
        #expect(table.rendered == "source,asleep_seconds\r\n")
        table.append(["=cmd|'/c calc'!A1", "-3600"])
        table.append(["Anna's Watch, left", "25200"])
        #expect(
            table.rendered
                == "source,asleep_seconds\r\n'=cmd|'/c calc'!A1,-3600\r\n\"Anna's Watch, left\",25200\r\n")
        #expect(table.rows.count == 2)
    }
}
