import Foundation

/// A text table with aligned columns, for people.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    mutating func append(_ row: [String]) { rows.append(row) }

    var rendered: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1
                    ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// An RFC 4180 CSV table: header row, CRLF line ends, fields quoted when needed.
struct CSVTable {
    var header: [String]
    var rows: [[String]] = []

    mutating func append(_ row: [String]) { rows.append(row) }

    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    var rendered: String {
        ([header] + rows).map { $0.map(CSVTable.field).joined(separator: ",") + "\r\n" }.joined()
    }
}
