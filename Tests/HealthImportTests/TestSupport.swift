import Foundation
import SleepCore
import SleepFixtures
import Testing

@testable import HealthImport

/// A fresh temporary directory per test, removed by the caller via `defer`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "healthimport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let target = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: target)
        return target.path
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// What one read produced.
struct ReadOutcome {
    var samples: [SleepSample]
    var locations: [SampleLocation]
    var report: ReadReport
}

/// Reads a source and collects every sample.
func readAll(_ source: ImportSource, options: ReaderOptions = .standard) throws -> ReadOutcome {
    var samples: [SleepSample] = []
    var locations: [SampleLocation] = []
    let report = try HealthImportReader(options: options).read(source) { sample, location in
        samples.append(sample)
        locations.append(location)
    }
    return ReadOutcome(samples: samples, locations: locations, report: report)
}

/// Reads a path and returns the bad-file error it must raise.
func badFileReason(_ source: ImportSource, options: ReaderOptions = .standard) -> ImportError? {
    do {
        _ = try readAll(source, options: options)
        return nil
    } catch let error as ImportError {
        return error
    } catch {
        return nil
    }
}

/// Runs a tool (zip, bsdtar) in `directory`; returns its exit status.
@discardableResult
func runTool(_ tool: String, _ arguments: [String], in directory: URL, standardInput: String? = nil)
    throws -> Int32
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    if let standardInput {
        process.standardInput = FileHandle(forReadingAtPath: standardInput)
    }
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// Location of a real export fragment in `Fixtures/real` beside these tests (licences and
/// attribution in its README).
func realFixturePath(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/real/\(name)").path
}

/// A minimal export.xml around some record text.
func healthXML(_ body: String, doctype: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    \(doctype)<HealthData locale="en_US">
     <ExportDate value="2024-06-01 08:10:05 +0200"/>
    \(body)</HealthData>

    """
}

/// One sleep record line.
func sleepRecord(
    source: String = "Watch", start: String = "2024-01-01 23:00:00 +0100",
    end: String = "2024-01-02 06:30:00 +0100",
    value: String = "HKCategoryValueSleepAnalysisAsleepCore", zone: String? = nil
) -> String {
    let head =
        " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(source)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
    guard let zone else { return head + "/>\n" }
    return head + ">\n  <MetadataEntry key=\"HKTimeZone\" value=\"\(zone)\"/>\n </Record>\n"
}

/// Realistic nights from SleepFixtures' stream generator (staged Watch nights with Awake,
/// iPhone InBed fragments with HKTimeZone, a third-party source without a zone), keeping
/// only samples a reader accepts (end after start) so round trips compare exactly.
func fixtureSamples(seed: UInt64, nights: Int) -> [SleepSample] {
    let first = LocalDate(year: 2023, month: 1, day: 2)
    return SleepStreamGenerator(seed: seed).samples(from: first, through: first.adding(days: nights - 1))
        .filter { $0.end > $0.start }
}
