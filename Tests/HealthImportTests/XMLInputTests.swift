import ExportFixtures
import Foundation
import SleepCore
import SleepFixtures
import Testing

@testable import HealthImport

/// XML quirks: Apple's and iOS 16's DTDs, correlations, generated exports, callbacks.
struct XMLInputTests {
    @Test(arguments: ExportSpec.DoctypeStyle.allCases)
    func generatedExportRoundTrips(style: ExportSpec.DoctypeStyle) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let samples = fixtureSamples(seed: 11, nights: 12)
        let path = directory.path("export.xml")
        var bytes: [UInt8] = []
        let sink = ByteSink(blockBytes: 4096) { bytes.append(contentsOf: $0) }
        try ExportXMLWriter.write(
            samples: samples,
            spec: ExportSpec(seed: 11, approximateXMLBytes: 2 << 20, doctypeStyle: style), to: sink)
        try directory.write("export.xml", bytes: bytes)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples == samples)
        #expect(outcome.report.diagnostics.isEmpty)
        #expect(outcome.report.accepted == samples.count)
        #expect(outcome.report.recordsSeen > samples.count * 10)
        #expect(outcome.report.inputBytes == Int64(bytes.count))
    }

    @Test func iOS16DoctypeWithoutClosingBracketOfADeclaration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let doctype = """
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 12 -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|VisionPrescription)*)>
            <!ATTLIST WorkoutActivity
              uuid                  CDATA #REQUIRED
              startDate             CDATA #REQUIRED
            <!ELEMENT WorkoutEvent EMPTY>
            <!ATTLIST WorkoutEvent
              type                  CDATA #REQUIRED
            >
            ]>

            """
        let path = try directory.write(
            "export.xml", healthXML(sleepRecord(zone: "Europe/Rome"), doctype: doctype))
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.map { $0.timeZoneIdentifier } == ["Europe/Rome"])
        // The DOCTYPE spans lines 2-12, so the root is on 13 and the record on 15.
        #expect(outcome.locations.map { $0.line } == [15])
    }

    @Test func recordsNestedInACorrelationAreNotCountedTwice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let record = sleepRecord(source: "Cuff")
        let body =
            " <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Cuff\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-01 23:00:00 +0100\">\n"
            + " <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Oslo\"/>\n" + record
            + " </Correlation>\n" + record
        let path = try directory.write("export.xml", healthXML(body))
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.count == 1)
        #expect(outcome.samples.first?.timeZoneIdentifier == nil)
        #expect(outcome.locations.map { $0.line } == [8])
        #expect(outcome.report.recordsSeen == 1)
    }

    @Test func byteOrderMarkCommentsAndProcessingInstructions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text =
            "\u{FEFF}"
            + healthXML(
                " <!-- <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\"/> -->\n <?pi <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\"/> ?>\n"
                    + sleepRecord())
        let path = try directory.write("export.xml", text)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.count == 1)
        #expect(outcome.locations.map { $0.line } == [6])
        #expect(outcome.report.sleepRecords == 1)
    }

    @Test func errorThrownBySampleCallbackStopsTheRead() throws {
        struct Stop: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let samples = fixtureSamples(seed: 2, nights: 40)
        try ExportZipWriter.write(
            samples: samples, spec: ExportSpec(seed: 2, approximateXMLBytes: 4 << 20),
            toPath: directory.path("e.zip"))
        var seen = 0
        #expect(throws: Stop.self) {
            _ = try HealthImportReader().read(.path(directory.path("e.zip"))) { _, _ in
                seen += 1
                if seen == 3 { throw Stop() }
            }
        }
        #expect(seen == 3)
    }

    @Test func progressIsReported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let samples = fixtureSamples(seed: 4, nights: 10)
        var bytes: [UInt8] = []
        let sink = ByteSink { bytes.append(contentsOf: $0) }
        try ExportXMLWriter.write(
            samples: samples, spec: ExportSpec(seed: 4, approximateXMLBytes: 3 << 20), to: sink)
        let path = try directory.write("export.xml", bytes: bytes)
        var reports: [ImportProgress] = []
        let report = try HealthImportReader(
            options: ReaderOptions(chunkBytes: 64 << 10, queuedChunks: 2, progressIntervalBytes: 1 << 20)
        )
        .read(
            .path(path), onSample: { _, _ in }, onProgress: { reports.append($0) })
        #expect(reports.count >= 3)
        #expect(reports.last?.inputBytesRead == Int64(bytes.count))
        #expect(reports.last?.inputBytesTotal == Int64(bytes.count))
        #expect(reports.last?.sleepRecords == samples.count)
        #expect(report.sleepRecords == samples.count)
    }
}

/// Samples from SleepFixtures' realistic generator survive export and import unchanged.
struct SleepFixturesRoundTripTests {
    @Test func streamGeneratorSamplesRoundTripThroughAZip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = LocalDate(year: 2023, month: 3, day: 20)
        let samples = SleepStreamGenerator(seed: 9).samples(from: first, through: first.adding(days: 60))
        let path = directory.path("export.zip")
        try ExportZipWriter.write(
            samples: samples, spec: ExportSpec(seed: 9, approximateXMLBytes: 4 << 20), toPath: path)
        let outcome = try readAll(.path(path))
        // Samples without a printed offset get the export's (+01:00) printed instead.
        let expected = samples.map { sample -> SleepSample in
            var printed = sample
            printed.printedUTCOffset = sample.printedUTCOffset ?? 3600
            return printed
        }
        let valid = expected.filter { $0.end > $0.start }
        #expect(outcome.samples == valid)
        #expect(outcome.report.rejected == expected.count - valid.count)
        #expect(Set(outcome.samples.map { $0.source }).count >= 2)
    }
}
