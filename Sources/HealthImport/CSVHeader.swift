import Foundation

/// The header line of a sleep-sample CSV: the delimiter and which column holds what.
///
/// Column names are matched without regard to case or surrounding spaces and quotes:
/// source (`sourceName`, `source`), start (`startDate`, `start`), end (`endDate`,
/// `end`), `value`, optional `type`, optional time zone (`timeZone`, `HKTimeZone`,
/// `time_zone`) and optional metadata columns (a name containing `metadata`, or
/// `sub_children` / `children`, as converters that flatten an export write them): texts
/// that may hold `HKTimeZone` (see ``CSVMetadata``).
struct CSVHeader: Sendable, Equatable {
    /// Comma, semicolon or tab.
    var delimiter: UInt8
    /// Number of columns in the header.
    var columnCount: Int
    var sourceColumn: Int?
    var startColumn: Int?
    var endColumn: Int?
    var valueColumn: Int?
    var typeColumn: Int?
    var timeZoneColumn: Int?
    /// Metadata columns, in header order, with their names as written (for warnings).
    var metadataColumns: [Int] = []
    var metadataColumnNames: [String] = []

    /// How many columns from the left the reader keeps: those after the last column it
    /// reads are counted, not stored.
    var keptColumnCount: Int {
        ([sourceColumn, startColumn, endColumn, valueColumn, typeColumn, timeZoneColumn].compactMap { $0 }
            + metadataColumns).max().map { $0 + 1 } ?? 0
    }

    /// Names of required columns the header lacks, in a fixed order.
    var missingRequiredColumns: [String] {
        var missing: [String] = []
        if sourceColumn == nil { missing.append("sourceName") }
        if startColumn == nil { missing.append("startDate") }
        if endColumn == nil { missing.append("endDate") }
        if valueColumn == nil { missing.append("value") }
        return missing
    }

    private var recognizedCount: Int {
        [sourceColumn, startColumn, endColumn, valueColumn, typeColumn, timeZoneColumn].count { $0 != nil }
            + metadataColumns.count
    }

    /// Reads a header line (without its line break, BOM already removed). Picks the
    /// delimiter that yields the most recognised column names. Returns `nil` when no
    /// column name is recognised at all: the input is not a sample CSV.
    /// Whether a column name (lowercased) names a record's metadata: it contains
    /// `metadata` (`metadata`, `MetadataEntry`, `metadata_entries`...), or it is
    /// `sub_children`, `subchildren` or `children` (the child elements of a flattened
    /// `Record`).
    static func isMetadataName(_ name: String) -> Bool {
        name.contains("metadata") || name == "sub_children" || name == "subchildren" || name == "children"
    }

    static func recognize(line: [UInt8]) -> CSVHeader? {
        var best: CSVHeader?
        for delimiter in [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t")] {
            let header = CSVHeader(line: line, delimiter: delimiter)
            if header.recognizedCount > (best?.recognizedCount ?? 0) {
                best = header
            }
        }
        return best
    }

    private init(line: [UInt8], delimiter: UInt8) {
        self.delimiter = delimiter
        let written = line.split(separator: delimiter, omittingEmptySubsequences: false).map { field in
            String(decoding: field, as: UTF8.self)
                .trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\"'"))
        }
        columnCount = written.count
        for (index, name) in written.map({ $0.lowercased() }).enumerated() {
            switch name {
            case "sourcename", "source", "source_name": sourceColumn = sourceColumn ?? index
            case "startdate", "start", "start_date": startColumn = startColumn ?? index
            case "enddate", "end", "end_date": endColumn = endColumn ?? index
            case "value", "stage": valueColumn = valueColumn ?? index
            case "type": typeColumn = typeColumn ?? index
            case "timezone", "hktimezone", "time_zone": timeZoneColumn = timeZoneColumn ?? index
            case _ where Self.isMetadataName(name):
                metadataColumns.append(index)
                metadataColumnNames.append(written[index])
            default: break
            }
        }
    }
}
