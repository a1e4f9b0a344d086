import ExportFixtures
import Foundation
import LedgerCrypto
import SleepCore
import Testing

@testable import HealthImport

/// Zip inputs: entry found by content, localized names, ZIP64, data descriptors, pipes.
struct ZipInputTests {
    private let body =
        sleepRecord(source: "Watch", zone: "Europe/Madrid")
        + sleepRecord(source: "Phone", value: "HKCategoryValueSleepAnalysisInBed")

    private func expectTwoSamples(_ outcome: ReadOutcome, entry: String) {
        #expect(outcome.report.kind == .zip)
        #expect(outcome.report.entryName == entry)
        #expect(outcome.samples.map { $0.source } == ["Watch", "Phone"])
        #expect(outcome.samples.first?.timeZoneIdentifier == "Europe/Madrid")
        #expect(outcome.locations.map { $0.file } == [entry, entry])
        #expect(outcome.locations.map { $0.line } == [4, 7])
    }

    @Test(arguments: ["exportar.xml", "导出.xml", "Export.xml"])
    func localizedEntryNameNextToClinicalDocument(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n")
        try directory.write("apple_health_export/\(name)", healthXML(body))
        try directory.write(
            "apple_health_export/workout-routes/route_1.gpx", "<?xml version=\"1.0\"?>\n<gpx/>\n")
        // The clinical document comes first in the archive and must be skipped.
        try runTool(
            "/usr/bin/zip",
            [
                "-q", "export.zip", "apple_health_export/export_cda.xml",
                "apple_health_export/workout-routes/route_1.gpx",
                "apple_health_export/\(name)",
            ],
            in: directory.url)
        let outcome = try readAll(.path(directory.path("export.zip")))
        expectTwoSamples(outcome, entry: "apple_health_export/\(name)")
    }

    @Test func forcedZip64() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("export.xml", healthXML(body))
        try runTool("/usr/bin/zip", ["-q", "-fz", "z64.zip", "export.xml"], in: directory.url)
        expectTwoSamples(try readAll(.path(directory.path("z64.zip"))), entry: "export.xml")
    }

    @Test(arguments: ["-6", "-0"])
    func dataDescriptorWrittenToAPipe(level: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("export.xml", healthXML(body))
        // zip writing to a pipe cannot seek back, so it writes data descriptors.
        try runTool(
            "/bin/sh", ["-c", "zip -q \(level) - export.xml | cat > dd.zip"], in: directory.url)
        expectTwoSamples(try readAll(.path(directory.path("dd.zip"))), entry: "export.xml")
    }

    @Test func bsdtarZip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("apple_health_export/export.xml", healthXML(body))
        try runTool(
            "/bin/sh", ["-c", "bsdtar --format zip -cf - apple_health_export | cat > b.zip"],
            in: directory.url)
        expectTwoSamples(
            try readAll(.path(directory.path("b.zip"))), entry: "apple_health_export/export.xml")
    }

    @Test func zipArrivingOnAPipe() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let samples = fixtureSamples(seed: 7, nights: 20)
        let path = directory.path("export.zip")
        try ExportZipWriter.write(
            samples: samples,
            spec: ExportSpec(
                seed: 7, approximateXMLBytes: 3 << 20, zipEntryName: "apple_health_export/导出.xml"),
            toPath: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(bytes)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let outcome = try readAll(.fileDescriptor(pipe.fileHandleForReading.fileDescriptor, name: "-"))
        #expect(outcome.samples == samples)
        #expect(outcome.report.entryName == "apple_health_export/导出.xml")
        #expect(outcome.report.inputBytes == Int64(bytes.count))
        #expect(outcome.report.sha256 == SHA256Digest.hex(of: [UInt8](bytes)))
    }

    @Test func zipOnStandardInputOfAChildProcess() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let samples = fixtureSamples(seed: 3, nights: 5)
        let path = directory.path("export.zip")
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: 3), toPath: path)
        // `cat` is the child; its standard output is our input pipe.
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/cat")
        process.arguments = [path]
        process.standardOutput = pipe
        try process.run()
        let outcome = try readAll(.fileDescriptor(pipe.fileHandleForReading.fileDescriptor, name: "-"))
        process.waitUntilExit()
        #expect(outcome.samples == samples)
        #expect(outcome.report.kind == .zip)
    }
}
