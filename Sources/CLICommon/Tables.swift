import Foundation

/// A text table with aligned columns, for people. Cells given as `String` are values:
/// their control characters are replaced (``TerminalText``); styled cells are
/// ``TerminalText``. Columns are as wide as their widest visible cell; lines carry no
/// trailing spaces.
package struct TextTable {
    package var header: [String]
    package var rows: [[TerminalText]] = []

    /// A table with these column headings and no rows yet.
    package init(header: [String]) { self.header = header }

    /// Appends a row of values.
    package mutating func append(_ row: [String]) { rows.append(row.map { TerminalText($0) }) }

    /// Appends a row of cells made for the terminal (values interpolated, styling).
    package mutating func append(_ row: [TerminalText]) { rows.append(row) }

    /// Every line, the header first.
    package var lines: [TerminalText] {
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
    package var rendered: TerminalText {
        lines.reduce(into: TerminalText.empty) { $0 += $1 + "\n" }
    }
}
