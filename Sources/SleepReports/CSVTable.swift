import Foundation

/// An RFC 4180 CSV table: header row, CRLF line ends, fields quoted when needed. The
/// admin tool's and the web pages' CSV downloads are written by it.
///
/// Cells are made safe for the terminal and for spreadsheets: control characters other
/// than a newline are replaced (``ControlCharacters``), and a cell a spreadsheet would
/// run as a formula (starting with `=`, `+`, `-` or `@`) gets a leading `'`, unless the
/// whole cell is a number (`-1.5`, `+3`, `-2e3` stay numbers). JSON is the exact form.
public struct CSVTable: Sendable, Hashable {
    /// The header row.
    public var header: [String]
    /// The rows, each as long as the header.
    public var rows: [[String]] = []

    /// A table with `header` and no rows.
    public init(header: [String]) {
        self.header = header
    }

    /// Appends a row of values.
    public mutating func append(_ row: [String]) { rows.append(row) }

    /// One cell: neutralised, then quoted when it holds a comma, quote or newline.
    public static func field(_ value: String) -> String {
        let cell = neutralised(value)
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The cell's text with control characters (other than newlines) replaced and a `'`
    /// before a formula.
    public static func neutralised(_ value: String) -> String {
        // Newlines inside a cell are data (a quoted field holds them); nothing else is.
        let text = value.split(separator: "\n", omittingEmptySubsequences: false).map {
            ControlCharacters.replacing(in: String($0), keepingLayout: false)
        }.joined(separator: "\n")
        guard let first = text.unicodeScalars.first, "=+-@".unicodeScalars.contains(first), !isNumber(text) else {
            return text
        }
        return "'" + text
    }

    /// Whether `text` is a plain decimal number: optional sign, digits with an optional
    /// fraction, an optional exponent.
    public static func isNumber(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        func digits() -> Int {
            let count = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        var count = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if let exponent = scalars.first, exponent == "e" || exponent == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    /// The whole table: the header and every row, each line ending in CRLF.
    public var rendered: String { Self.line(header) + renderedRows }

    /// The rows without the header, each line ending in CRLF: a piece of a table written in
    /// several pieces.
    public var renderedRows: String { rows.map(Self.line).joined() }

    /// One row's line, ending in CRLF.
    public static func line(_ cells: [String]) -> String { cells.map(field).joined(separator: ",") + "\r\n" }
}
