public import SleepCore

/// Stored sleep samples as CSV in the importer's own CSV format (docs/import-formats.md,
/// "CSV"): `sourceName,startDate,endDate,value,timeZone`, one sample a line, the stage as
/// its HealthKit value, the instants ISO 8601 at the offset the export printed (UTC when it
/// printed none). What a person downloads with all their data, and what `sleepledger
/// import` reads back as the same samples. Cells go through ``CSVTable`` (formulas
/// neutralised, controls replaced), lines end in CRLF.
public enum SamplesCSV {
    /// The header, the importer's column names.
    public static let header = ["sourceName", "startDate", "endDate", "value", "timeZone"]

    /// The header line.
    public static var headerLine: String { CSVTable.line(header) }

    /// One sample's line.
    public static func line(_ sample: SleepSample) -> String {
        CSVTable.line([
            sample.source, ReportFormat.isoOffset(sample.start, offsetSeconds: sample.printedUTCOffset),
            ReportFormat.isoOffset(sample.end, offsetSeconds: sample.printedUTCOffset), sample.stage.healthKitValue,
            sample.timeZoneIdentifier ?? "",
        ])
    }
}
