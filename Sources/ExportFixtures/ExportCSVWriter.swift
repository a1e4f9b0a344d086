import Foundation
public import SleepCore

/// Writes sleep samples as CSV: `sourceName,startDate,endDate,value,timeZone` with
/// Apple-format dates, RFC 4180 quoting, and a chosen delimiter.
public enum ExportCSVWriter {
    /// The CSV text for `samples`.
    public static func text(
        samples: [SleepSample], delimiter: Character = ",", exportUTCOffsetSeconds: Int32 = 3600
    ) -> String {
        let columns = ["sourceName", "startDate", "endDate", "value", "timeZone"]
        var lines = [columns.joined(separator: String(delimiter))]
        for sample in samples {
            let offset = sample.printedUTCOffset ?? exportUTCOffsetSeconds
            let fields = [
                sample.source,
                AppleDateText.format(sample.start, utcOffsetSeconds: offset),
                AppleDateText.format(sample.end, utcOffsetSeconds: offset),
                ExportXMLWriter.healthKitValue(sample.stage),
                sample.timeZoneIdentifier ?? "",
            ]
            lines.append(
                fields.map { quoted($0, delimiter: delimiter) }.joined(separator: String(delimiter)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Quotes a field when it holds the delimiter, a quote or a line break.
    static func quoted(_ field: String, delimiter: Character) -> String {
        guard field.contains(where: { $0 == delimiter || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
