import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// Records rejected one by one, each with file, line and reason; the rest imports.
struct BadRecordTests {
    @Test func eachBadRecordHasFileLineAndReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var lines: [String] = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",  // 1
            "<HealthData locale=\"en_US\">",  // 2
            " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>",  // 3
        ]
        let sleep = "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\""
        lines.append(
            " \(sleep) sourceName=\"Good\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>"
        )  // 4
        lines.append(
            " \(sleep) sourceName=\"W\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-01 23:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>"
        )  // 5
        lines.append(
            " \(sleep) sourceName=\"W\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisNap\"/>"
        )  // 6
        lines.append(
            " \(sleep) sourceName=\"W\" startDate=\"2024-01-01\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>"
        )  // 7
        lines.append(
            " \(sleep) startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>"
        )  // 8
        lines.append(
            " \(sleep) sourceName=\"W\u{FFFF}BAD\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>"
        )  // 9: bytes replaced below
        lines.append(
            " \(sleep) sourceName=\"W\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAwake\">"
        )  // 10
        lines.append("  <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\">")  // 11: never closed
        lines.append(" </Record>")  // 12
        lines.append(
            " \(sleep) sourceName=\"a<b\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAwake\"/>"
        )  // 13
        lines.append(
            " \(sleep) sourceName=\"W\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAwake\"/>"
        )  // 14
        lines.append(
            " \(sleep) sourceName=\"Late\" startDate=\"2024-01-02 23:00:00 +0100\" endDate=\"2024-01-03 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepREM\"/>"
        )  // 15
        lines.append("</HealthData>")
        var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        // Line 9: an invalid UTF-8 byte (0xFF) in the source name, in place of U+FFFF's bytes.
        let marker: [UInt8] = [0xEF, 0xBF, 0xBF]
        if let at = (0..<(bytes.count - 2)).first(where: { Array(bytes[$0..<($0 + 3)]) == marker }) {
            bytes.replaceSubrange(at..<(at + 3), with: [0xFF])
        }
        let path = try directory.write("export.xml", bytes: bytes)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.map { $0.source } == ["Good", "Late"])
        #expect(
            outcome.locations == [
                SampleLocation(file: path, line: 4), SampleLocation(file: path, line: 15),
            ])
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(
                    file: path, line: 5,
                    reason:
                        "endDate 2024-01-01 23:00:00 +0100 is not after startDate 2024-01-01 23:00:00 +0100"),
                ImportDiagnostic(
                    file: path, line: 6, reason: "unknown sleep value \"HKCategoryValueSleepAnalysisNap\""),
                ImportDiagnostic(file: path, line: 7, reason: "unreadable startDate \"2024-01-01\""),
                ImportDiagnostic(file: path, line: 8, reason: "missing sourceName"),
                ImportDiagnostic(file: path, line: 9, reason: "invalid UTF-8 (byte 0xff)"),
                ImportDiagnostic(
                    file: path, line: 10,
                    reason: "broken markup in sleep record: </Record> where </MetadataEntry> belongs"),
                ImportDiagnostic(
                    file: path, line: 13,
                    reason: "broken markup in sleep record: '<' inside the Record start tag"),
                ImportDiagnostic(file: path, line: 14, reason: "missing startDate"),
            ])
        #expect(outcome.report.sleepRecords == 10)
        #expect(outcome.report.accepted == 2)
        #expect(outcome.report.rejected == 8)
        #expect(
            outcome.report.diagnostics.first?.description
                == "\(path):5: endDate 2024-01-01 23:00:00 +0100 is not after startDate 2024-01-01 23:00:00 +0100"
        )
    }

    @Test func badRecordInsideZipNamesTheEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let body = sleepRecord() + sleepRecord(value: "HKCategoryValueSleepAnalysisDozing")
        try directory.write("apple_health_export/export.xml", healthXML(body))
        try runTool(
            "/usr/bin/zip", ["-q", "-r", "export.zip", "apple_health_export"], in: directory.url)
        let outcome = try readAll(.path(directory.path("export.zip")))
        #expect(outcome.samples.count == 1)
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(
                    file: "apple_health_export/export.xml", line: 5,
                    reason: "unknown sleep value \"HKCategoryValueSleepAnalysisDozing\"")
            ])
    }

    @Test func verticalTabInSourceNameIsReplacedNotFatal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let body = sleepRecord(source: "Anna\u{0B}s Watch", zone: "Europe/Berlin")
        let path = try directory.write("export.xml", healthXML(body))
        let outcome = try readAll(.path(path))
        // Every attribute after the vertical tab survives (XMLParser would drop them).
        #expect(
            outcome.samples == [
                SleepSample(
                    source: "Anna\u{FFFD}s Watch", start: 19_723 * 86_400 + 22 * 3600,
                    end: 19_724 * 86_400 + 5 * 3600 + 1800, stage: .core, timeZoneIdentifier: "Europe/Berlin",
                    printedUTCOffset: 3600)
            ])
        #expect(
            outcome.report.warnings == [
                "replaced 1 character(s) XML 1.0 forbids (such as a vertical tab) with U+FFFD in sleep records"
            ])
        #expect(outcome.report.diagnostics.isEmpty)
    }

    @Test func unclosedSleepRecordIsRejectedAndTheRestImports() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let open =
            " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Open\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisInBed\">\n"
        let after = sleepRecord(
            source: "After", start: "2024-01-02 23:00:00 +0100", end: "2024-01-03 06:00:00 +0100")
        let path = try directory.write("export.xml", healthXML(open + after + after))
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.map { $0.source } == ["After", "After"])
        #expect(outcome.locations.map { $0.line } == [5, 6])
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(
                    file: path, line: 4,
                    reason: "broken markup in sleep record: </HealthData> where </Record> belongs")
            ])
        // Cut before </HealthData>: the record is still rejected, the others still read,
        // and the file is refused for its missing end.
        let cut = healthXML(open + after).replacingOccurrences(of: "</HealthData>\n", with: "")
        let cutPath = try directory.write("cut.xml", cut)
        #expect(
            badFileReason(.path(cutPath))
                == .badFile(
                    file: cutPath, line: 6,
                    reason:
                        "the export ends before its closing </HealthData>: the file is truncated or damaged"))
    }

    @Test func overlongSleepRecordIsRejectedAndItsEndTagStillBalances() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = sleepRecord(source: "Long", zone: "Europe/Amsterdam")
        let short = sleepRecord(source: "Short")
        let path = try directory.write("export.xml", healthXML(long + short))
        let outcome = try readAll(.path(path), options: ReaderOptions(maximumSleepRecordBytes: 200))
        #expect(outcome.samples.map { $0.source } == ["Short"])
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(file: path, line: 4, reason: "sleep record not closed within 200 bytes")
            ])
    }
}
