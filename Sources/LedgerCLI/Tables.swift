import Foundation

/// A text table with aligned columns, for people. Cells given as `String` are values:
/// their control characters are replaced (``TerminalText``); styled cells are
/// ``TerminalText``. Columns are as wide as their widest visible cell; lines carry no
/// trailing spaces.
struct TextTable {
    var header: [String]
    var rows: [[TerminalText]] = []

    /// Appends a row of values.
    mutating func append(_ row: [String]) { rows.append(row.map { TerminalText($0) }) }

    /// Appends a row of cells made for the terminal (values interpolated, styling).
    mutating func append(_ row: [TerminalText]) { rows.append(row) }

    /// Every line, the header first.
    var lines: [TerminalText] {
        let all = [header.map { TerminalText($0) }] + rows
        let widths = header.indices.map { column in all.map { $0[column].width }.max() ?? 0 }
        return all.map { row in
            var line = TerminalText.empty
            for column in row.indices {
                if column > 0 { line += "  " }
                line += row[column]
                if column < row.count - 1 {
                    line += TerminalText(String(repeating: " ", count: max(0, widths[column] - row[column].width)))
                }
            }
            return line.trimmingTrailingSpaces()
        }
    }

    /// The lines, each ending in a newline.
    var rendered: TerminalText {
        lines.reduce(into: TerminalText.empty) { $0 += $1 + "\n" }
    }
}

/// An RFC 4180 CSV table: header row, CRLF line ends, fields quoted when needed.
///
/// Cells are made safe for the terminal and for spreadsheets: control characters other
/// than a newline are replaced as in text (``TerminalText``), and a cell a spreadsheet
/// would run as a formula (starting with `=`, `+`, `-` or `@`) gets a leading `'`, unless
/// the whole cell is a number (`-1.5`, `+3`, `-2e3` stay numbers). JSON is the exact form.
struct CSVTable {
    var header: [String]
    var rows: [[String]] = []

    mutating func append(_ row: [String]) { rows.append(row) }

    /// One cell: neutralised, then quoted when it holds a comma, quote or newline.
    static func field(_ value: String) -> String {
        let cell = neutralised(value)
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The cell's text with control characters (other than newlines) replaced and a `'`
    /// before a formula.
    static func neutralised(_ value: String) -> String {
        // Newlines inside a cell are data (a quoted field holds them); nothing else is.
        let text = value.split(separator: "\n", omittingEmptySubsequences: false).map {
            TerminalText.replacingControlCharacters(in: String($0), keepingLayout: false)
        }.joined(separator: "\n")
        guard let first = text.unicodeScalars.first, "=+-@".unicodeScalars.contains(first), !isNumber(text) else {
            return text
        }
        return "'" + text
    }

    /// Whether `text` is a plain decimal number: optional sign, digits with an optional
    /// fraction, an optional exponent.
    static func isNumber(_ text: String) -> Bool {
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

    var rendered: String {
        ([header] + rows).map { $0.map(CSVTable.field).joined(separator: ",") + "\r\n" }.joined()
    }
}
