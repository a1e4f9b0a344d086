import ExportFixtures
import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// The export generator writes what real exports hold, at the size asked for.
struct ExportFixturesTests {
    @Test(arguments: [
        (Int64(1_704_067_200), Int32(3600), "2024-01-01 01:00:00 +0100"),
        (Int64(1_704_067_200), Int32(-25_200), "2023-12-31 17:00:00 -0700"),
        (Int64(951_782_400), Int32(19_800), "2000-02-29 05:30:00 +0530"),
        (Int64(-1), Int32(0), "1969-12-31 23:59:59 +0000"),
    ])
    func appleDateText(instant: Int64, offset: Int32, text: String) {
        #expect(AppleDateText.format(instant, utcOffsetSeconds: offset) == text)
        #expect(HealthTimestamp(parsing: text) == HealthTimestamp(secondsSince1970: instant, utcOffsetSeconds: offset))
    }

    /// Days of every year are written with four-digit years (a minus sign first before
    /// year 0), and instants before 1970 fall on the right day.
    @Test(arguments: [
        (Int64(-1), "1969-12-31"), (Int64(-2_208_988_800), "1900-01-01"), (Int64(-2_208_988_801), "1899-12-31"),
        (Int64(7_258_118_399), "2199-12-31"), (Int64(-62_135_596_800), "0001-01-01"),
        (Int64(-62_167_219_200 - 86_400), "-0001-12-31"),
    ])
    func appleDayText(instant: Int64, text: String) {
        #expect(AppleDateText.formatDay(instant) == text)
        #expect(AppleDateText.format(instant, utcOffsetSeconds: 0).hasPrefix(text + " "))
        #expect(AppleDateText.formatISO8601(instant).hasPrefix(text + "T"))
    }

    @Test func xmlHasApplesShapeAndRequestedSize() throws {
        let samples = fixtureSamples(seed: 5, nights: 15)
        var bytes: [UInt8] = []
        let sink = ByteSink { bytes.append(contentsOf: $0) }
        let target: Int64 = 4 << 20
        try ExportXMLWriter.write(samples: samples, spec: ExportSpec(seed: 5, approximateXMLBytes: target), to: sink)
        #expect(abs(Int64(bytes.count) - target) < target / 100)
        let text = String(decoding: bytes, as: UTF8.self)
        for expected in [
            "<!DOCTYPE HealthData [", "CDATA #REQUIRED", "CDATA #IMPLIED", "<ExportDate value=", "<Me ",
            "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "<MetadataEntry key=",
            "device=\"&lt;&lt;HKDevice: 0x", "name:Apple Watch",
            "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\"",
            "<Workout ", "<ActivitySummary ", "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisInBed",
            "<MetadataEntry key=\"HKTimeZone\" value=\"Europe/Berlin\"/>", "</HealthData>\n",
        ] {
            #expect(text.contains(expected), "missing \(expected)")
        }
        // Same seed, same bytes.
        var again: [UInt8] = []
        try ExportXMLWriter.write(
            samples: samples, spec: ExportSpec(seed: 5, approximateXMLBytes: target),
            to: ByteSink { again.append(contentsOf: $0) })
        #expect(again == bytes)
        // About 3 % of the records are sleep records.
        let outcome = try readXML(bytes)
        let share = Double(outcome.report.sleepRecords) / Double(outcome.report.recordsSeen)
        #expect(share > 0.02 && share < 0.06)
    }

    @Test func zipHoldsTheExportAndTheClinicalDocument() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("export.zip")
        try ExportZipWriter.write(samples: fixtureSamples(seed: 1, nights: 2), spec: ExportSpec(), toPath: path)
        try runTool("/bin/sh", ["-c", "bsdtar -tf export.zip > list.txt"], in: directory.url)
        let listing = try String(contentsOfFile: directory.path("list.txt"), encoding: .utf8)
        #expect(listing == "apple_health_export/export.xml\napple_health_export/export_cda.xml\n")
    }

    @Test func csvRoundTrips() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var samples = fixtureSamples(seed: 8, nights: 3)
        samples[0].source = "Garmin, \"Fenix\" 7"
        let path = try directory.write("s.csv", ExportCSVWriter.text(samples: samples, delimiter: ";"))
        #expect(try readAll(.path(path)).samples == samples)
    }

    private func readXML(_ bytes: [UInt8]) throws -> ReadOutcome {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try readAll(.path(try directory.write("export.xml", bytes: bytes)))
    }
}
