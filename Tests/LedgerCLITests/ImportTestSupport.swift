import ExportFixtures
import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures

/// A migrated test database with one user, plus a scratch folder for export files.
struct ImportFixture {
    let environment: [String: String]
    let folder: URL

    init(handle: String = "anna", timeZone: String = "Europe/Amsterdam") throws {
        environment = try migratedEnvironment()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = runTool(["user", "add", handle, "--time-zone", timeZone], environment: environment)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes a text file and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        return path(name)
    }

    /// Writes a generated export.zip of `samples` and returns its path.
    func writeZip(_ name: String, samples: [SleepSample]) throws -> String {
        try ExportZipWriter.write(samples: samples, spec: ExportSpec(seed: 3), toPath: path(name))
        return path(name)
    }

    /// The test database as the read-only role, for the admin tool.
    var readOnlyURL: String {
        (try? ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: environment["DATABASE_URL"] ?? "")) ?? ""
    }

    /// A connection to the test database, for assertions.
    func connection() throws -> Connection {
        try Connection(conninfo: environment["DATABASE_URL"] ?? "")
    }

    /// One integer from a query.
    func count(_ sql: String) throws -> Int {
        let connection = try connection()
        defer { connection.close() }
        return try connection.execute(sql).single().int(0) ?? -1
    }
}

/// Generated nights from 2023-01-01, `nights` of them.
func generatedSamples(nights: Int, seed: UInt64 = 11) -> [SleepSample] {
    let first = LocalDate(year: 2023, month: 1, day: 1)
    return SleepStreamGenerator(seed: seed).samples(from: first, through: first.adding(days: nights - 1))
}

/// The key `sleep_samples` deduplicates on.
struct SampleKey: Hashable {
    var source: String
    var start: Int64
    var end: Int64
    var stage: SleepStage
    init(_ sample: SleepSample) {
        source = sample.source
        start = sample.start
        end = sample.end
        stage = sample.stage
    }
}

/// A sleep `Record` line of an export.xml.
func sleepRecord(
    source: String = "Anna’s Apple Watch", start: String, end: String, value: String, zone: String? = nil
) -> String {
    let head =
        "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(source)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
    guard let zone else { return " " + head + "/>\n" }
    return " " + head + ">\n  <MetadataEntry key=\"HKTimeZone\" value=\"\(zone)\"/>\n </Record>\n"
}

/// An export.xml around some record lines (the first record starts on line 3).
func exportXML(_ records: [String]) -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_NL\">\n" + records.joined()
        + "</HealthData>\n"
}
