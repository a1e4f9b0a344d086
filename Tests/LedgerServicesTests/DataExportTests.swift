import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerReadServices

/// "Download all my data" (issue 22, item 4) on the server's role and a real database: the
/// zip is opened with libarchive's reader and each file checked against what was imported
/// and what the database holds, never against the exporter's own output.
@Suite("Data export")
struct DataExportTests {
    /// Samples written by hand as a CSV import, with what `samples.csv` must show for each
    /// (`source`, `startDate`, `endDate`, `value`, `timeZone` as the CSV cells read back):
    /// a quoted source with a comma and quotes, Apple's dates with an offset (kept), ISO
    /// UTC dates, a formula-like source (neutralised with `'`), a half-hour offset, no zone.
    static let handWritten = """
        sourceName,startDate,endDate,value,timeZone
        "Garmin, ""Fenix"" 7",2024-02-10 23:00:00 +0100,2024-02-11 06:40:00 +0100,Asleep,
        =HYPERLINK(1),2024-02-12T22:00:00Z,2024-02-13T05:00:00Z,AsleepDeep,Europe/Paris
        Anna’s iPhone,2024-02-14 23:10:00 -0330,2024-02-15 07:05:00 -0330,InBed,America/St_Johns

        """
    static let handWrittenRows: [[String]] = [
        [
            "Garmin, \"Fenix\" 7", "2024-02-10T23:00:00+01:00", "2024-02-11T06:40:00+01:00",
            "HKCategoryValueSleepAnalysisAsleepUnspecified", "",
        ],
        [
            "'=HYPERLINK(1)", "2024-02-12T22:00:00Z", "2024-02-13T05:00:00Z", "HKCategoryValueSleepAnalysisAsleepDeep",
            "Europe/Paris",
        ],
        [
            "Anna’s iPhone", "2024-02-14T23:10:00-03:30", "2024-02-15T07:05:00-03:30",
            "HKCategoryValueSleepAnalysisInBed", "America/St_Johns",
        ],
    ]

    /// The HealthKit value of each stage, written out here rather than taken from the code.
    static let healthKitValues: [SleepStage: String] = [
        .inBed: "HKCategoryValueSleepAnalysisInBed",
        .asleepUnspecified: "HKCategoryValueSleepAnalysisAsleepUnspecified",
        .core: "HKCategoryValueSleepAnalysisAsleepCore", .deep: "HKCategoryValueSleepAnalysisAsleepDeep",
        .rem: "HKCategoryValueSleepAnalysisAsleepREM", .awake: "HKCategoryValueSleepAnalysisAwake",
    ]

    /// One sample as comparable cells: source, start and end (epoch seconds), value, zone.
    struct Cells: Hashable {
        var source: String
        var start: Int64
        var end: Int64
        var value: String
        var zone: String
    }

    /// RFC 4180 rows of `text` (quoted fields, `""`, CRLF), header included.
    static func csvRows(_ text: String) -> [[String]] {
        let characters = Array(text)
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var isQuoted = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if isQuoted {
                if character != "\"" {
                    field.append(character)
                } else if index < characters.count, characters[index] == "\"" {
                    field.append("\"")
                    index += 1
                } else {
                    isQuoted = false
                }
                continue
            }
            switch character {
            case "\"": isQuoted = true
            case ",":
                row.append(field)
                field = ""
            case "\r\n", "\n":
                rows.append(row + [field])
                row = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty { rows.append(row + [field]) }
        return rows
    }

    static func epoch(_ text: String) throws -> Int64 {
        let date = try #require(ISO8601DateFormatter().date(from: text), "not ISO 8601: \(text)")
        return Int64(date.timeIntervalSince1970)
    }

    /// The zip's entries by name (the folder dropped).
    static func entries(_ zip: [UInt8]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for entry in try ZipEntries.read(zip) {
            #expect(entry.name.hasPrefix("sleepledger-export/"), "\(entry.name)")
            found[String(entry.name.dropFirst("sleepledger-export/".count))] = entry.bytes
        }
        return found
    }

    /// The export of `userID` on `session`, collected.
    static func export(_ session: LedgerSession, _ userID: Int64, now: Int64) throws -> (
        [UInt8], DataExport.Contents
    ) {
        var zip: [UInt8] = []
        let contents = try AccountService(session: session, userID: userID).export(now: now) { zip += $0 }
        return (zip, contents)
    }

    @Test("the zip holds every sample as importable CSV, the nights, naps, summaries and imports, and nobody else's")
    func everything() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let users = UserService(session: fixture.session)
        let anna = try users.user(handle: "anna")
        let ben = try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let asOf = LocalDate(year: 2024, month: 3, day: 1)
        let now = Int64(asOf.daysSinceEpoch) * 86_400 + 12 * 3600
        let generated = SleepStreamGenerator(seed: 5).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 1, day: 31))
        let imports = ImportService(session: fixture.session)
        let zipImport = try imports.importInput(
            .path(try fixture.writeZip("export.zip", samples: generated)), for: anna)
        let csvImport = try imports.importInput(.path(try fixture.write("hand.csv", Self.handWritten)), for: anna)
        try #require(zipImport.report.rejected == 0 && csvImport.report.rejected == 0)
        let bensSamples = SleepStreamGenerator(seed: 9).samples(
            from: LocalDate(year: 2024, month: 1, day: 10), through: LocalDate(year: 2024, month: 1, day: 20))
        _ = try imports.importInput(.path(try fixture.writeZip("ben.zip", samples: bensSamples)), for: ben)
        try RollupService(database: fixture.database, settings: RollupSettings(asOf: asOf)).run(now: now)

        let (zip, contents) = try Self.export(session, annaID, now: now)
        let files = try Self.entries(zip)
        #expect(
            Set(files.keys)
                == Set(
                    ["README.txt", "samples.csv", "nights.csv", "naps.csv", "imports.json"]
                        + Horizon.allCases.map { "summaries/\($0.rawValue).json" }))

        // Samples: the importer's header, then exactly what was imported.
        let rows = Self.csvRows(String(decoding: try #require(files["samples.csv"]), as: UTF8.self))
        #expect(rows.first == ["sourceName", "startDate", "endDate", "value", "timeZone"])
        let body = Array(rows.dropFirst())
        for row in Self.handWrittenRows { #expect(body.contains(row), "\(row)") }
        let exported = try body.map { row in
            try #require(row.count == 5, "\(row)")
            return Cells(
                source: row[0], start: try Self.epoch(row[1]), end: try Self.epoch(row[2]), value: row[3], zone: row[4])
        }
        // What the database stores, read here with SQL, the stage spelled out by this test.
        let database = try Connection(conninfo: fixture.conninfo)
        defer { database.close() }
        let expected = Set(
            try database.execute(
                """
                SELECT source, date_part('epoch', start_at)::bigint, date_part('epoch', end_at)::bigint, stage,
                    coalesce(time_zone, '')
                FROM sleep_samples WHERE user_id = $1
                """, [.int64(annaID)]
            ).rows.map { row in
                Cells(
                    source: try CSVNeutral.cell(try row.string(0) ?? ""), start: try row.int64(1) ?? 0,
                    end: try row.int64(2) ?? 0,
                    value: Self.healthKitValues[SleepStage(rawValue: try row.string(3) ?? "") ?? .awake] ?? "",
                    zone: try row.string(4) ?? "")
            })
        #expect(expected.count == Set(generated).count + Self.handWrittenRows.count, "everything was stored")
        let generatedKeys = Set(
            generated.map { "\($0.source)|\($0.start)|\($0.end)|\(Self.healthKitValues[$0.stage] ?? "")" })
        #expect(generatedKeys.isSubset(of: Set(exported.map { "\($0.source)|\($0.start)|\($0.end)|\($0.value)" })))
        #expect(exported.count == expected.count, "one line per stored sample")
        #expect(Set(exported) == expected)
        #expect(contents.samples == expected.count && contents.handle == "anna")

        // Nights and naps: one row per stored one, by the database's own count and days.
        let storedDays = try database.execute(
            "SELECT wake_day::text FROM nights WHERE user_id = $1 ORDER BY wake_day", [.int64(annaID)]
        ).rows.map { try $0.string(0) ?? "" }
        let nightRows = Self.csvRows(String(decoding: try #require(files["nights.csv"]), as: UTF8.self))
        #expect(nightRows.first?.first == "wake_day" && !storedDays.isEmpty)
        #expect(nightRows.dropFirst().map { $0.first ?? "" } == storedDays)
        let storedNaps = try database.execute("SELECT count(*) FROM naps WHERE user_id = $1", [.int64(annaID)])
            .single().int64(0)
        let napRows = Self.csvRows(String(decoding: try #require(files["naps.csv"]), as: UTF8.self))
        #expect(Int64(napRows.count - 1) == storedNaps)

        // Summaries: each the stored document.
        for row in try database.execute(
            "SELECT horizon, summary::text FROM summaries WHERE user_id = $1", [.int64(annaID)]
        ).rows {
            let horizon = try #require(try row.string(0))
            let stored = try JSONSerialization.jsonObject(with: Data(try #require(try row.string(1)).utf8))
            let file = try #require(files["summaries/\(horizon).json"])
            let written = try JSONSerialization.jsonObject(with: Data(file))
            #expect((stored as? NSDictionary) == (written as? NSDictionary), "\(horizon)")
        }

        // Imports: both, with what each import counted.
        let importsFile = try #require(files["imports.json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(importsFile)) as? [String: Any])
        let documents = try #require(listing["imports"] as? [[String: Any]])
        // A command-line import's file name is the path it was given.
        let names = documents.compactMap { $0["file_name"] as? String }.map {
            String($0.split(separator: "/").last ?? "")
        }
        #expect(names.sorted() == ["export.zip", "hand.csv"])
        for (name, result) in [("export.zip", zipImport), ("hand.csv", csvImport)] {
            let document = documents.first { ($0["file_name"] as? String)?.hasSuffix("/" + name) == true }
            let counts = document?["counts"] as? [String: Any]
            #expect(counts?["inserted"] as? Int == result.outcome?.inserted, "\(name)")
        }

        // Ben's export is his own.
        let (bensZip, bensContents) = try Self.export(session, ben.id, now: now)
        let bensRows = Self.csvRows(
            String(decoding: try #require(try Self.entries(bensZip)["samples.csv"]), as: UTF8.self))
        #expect(bensContents.samples == Set(bensSamples).count && bensRows.count == bensContents.samples + 1)
        #expect(bensContents.imports == 1 && bensContents.handle == "ben")
        #expect(!bensRows.contains { $0.first == "Garmin, \"Fenix\" 7" })

        // samples.csv imports again as the same samples; only the neutralised source differs.
        let clara = try users.add(handle: "clara", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let again = try fixture.write(
            "samples.csv", String(decoding: try #require(files["samples.csv"]), as: UTF8.self))
        let reimport = try imports.importInput(.path(again), for: clara)
        #expect(reimport.report.rejected == 0 && reimport.outcome?.inserted == expected.count)
        let differences = try database.execute(
            """
            (SELECT 'only anna', source FROM (SELECT source, start_at, end_at, stage, time_zone, printed_utc_offset
                FROM sleep_samples WHERE user_id = $1 EXCEPT SELECT source, start_at, end_at, stage, time_zone,
                printed_utc_offset FROM sleep_samples WHERE user_id = $2) a)
            UNION ALL
            (SELECT 'only clara', source FROM (SELECT source, start_at, end_at, stage, time_zone, printed_utc_offset
                FROM sleep_samples WHERE user_id = $2 EXCEPT SELECT source, start_at, end_at, stage, time_zone,
                printed_utc_offset FROM sleep_samples WHERE user_id = $1) c)
            ORDER BY 1
            """, [.int64(annaID), .int64(clara.id)]
        ).rows.map { [try $0.string(0) ?? "", try $0.string(1) ?? ""] }
        #expect(differences == [["only anna", "=HYPERLINK(1)"], ["only clara", "'=HYPERLINK(1)"]])
    }

    /// What a spreadsheet-safe CSV cell of a stored source is: the one formula-like source of
    /// this test gets its `'`.
    enum CSVNeutral {
        static func cell(_ source: String) throws -> String { source == "=HYPERLINK(1)" ? "'" + source : source }
    }

    /// A sink's failure (a client that went away).
    struct GoneAway: Error {}

    @Test("an unknown account is not found before any byte; a failing sink ends the export with its own error")
    func refusals() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        var written = 0
        #expect {
            _ = try AccountService(session: session, userID: annaID + 1000).export(now: 0) { written += $0.count }
        } throws: { ($0 as? ServiceError)?.kind == .notFound }
        #expect(written == 0)

        let samples = SleepStreamGenerator(seed: 2).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2024, month: 12, day: 31))
        let anna = try UserService(session: fixture.session).user(handle: "anna")
        _ = try ImportService(session: fixture.session).importInput(
            .path(try fixture.writeZip("export.zip", samples: samples)), for: anna)
        var calls = 0
        #expect(throws: GoneAway.self) {
            _ = try AccountService(session: session, userID: annaID).export(now: 0) { _ in
                calls += 1
                if calls == 2 { throw GoneAway() }
            }
        }
        #expect(calls == 2, "nothing is written after the sink failed")
        #expect(session.isReusable, "the transaction ended")
        let (zip, contents) = try Self.export(session, annaID, now: 0)
        #expect(try ZipEntries.read(zip).count == 5 && contents.samples == Set(samples).count)
    }

    @Test("nights and naps over more than a year of wake days are written in pieces: every one, once, in order")
    func pieces() throws {
        let (fixture, session, annaID) = try AccountServiceTests.setUp()
        defer {
            session.close()
            fixture.close()
        }
        let anna = try UserService(session: fixture.session).user(handle: "anna")
        let samples = SleepStreamGenerator(seed: 4).samples(
            from: LocalDate(year: 2022, month: 6, day: 1), through: LocalDate(year: 2024, month: 8, day: 31))
        _ = try ImportService(session: fixture.session).importInput(
            .path(try fixture.writeZip("export.zip", samples: samples)), for: anna)
        let asOf = LocalDate(year: 2024, month: 9, day: 1)
        try RollupService(database: fixture.database, settings: RollupSettings(asOf: asOf)).run(
            now: Int64(asOf.daysSinceEpoch) * 86_400)
        let (zip, contents) = try Self.export(session, annaID, now: 0)
        let files = try Self.entries(zip)
        let database = try Connection(conninfo: fixture.conninfo)
        defer { database.close() }
        for (table, file, column) in [("nights", "nights.csv", "wake_day::text"), ("naps", "naps.csv", "start_at")] {
            let stored = try database.execute(
                "SELECT wake_day::text FROM \(table) WHERE user_id = $1 ORDER BY wake_day, \(column)",
                [.int64(annaID)]
            ).rows.map { try $0.string(0) ?? "" }
            let rows = Self.csvRows(String(decoding: try #require(files[file]), as: UTF8.self))
            #expect(rows.first?.first == "wake_day")
            #expect(rows.dropFirst().map { $0.first ?? "" } == stored, "\(file)")
            #expect(stored.count > (table == "nights" ? 700 : 10), "\(table) over two years")
        }
        #expect(contents.nights > 700)
    }

    /// Whether `bytes` hold a zip's end of central directory record (`PK\u{5}\u{6}`).
    static func hasEndOfCentralDirectory(_ bytes: [UInt8]) -> Bool {
        bytes.indices.dropLast(3).contains {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 5 && bytes[$0 + 3] == 6
        }
    }

    @Test(
        "a zip dropped before its end (its export failed) sends nothing more: no central directory that would make a cut download read as whole",
        arguments: [true, false])
    func dropped(isFinished: Bool) throws {
        // 300 KB that deflate cannot shrink below libarchive's 64 KiB block.
        var state: UInt64 = 7
        let noise = (0..<300_000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var sent: [UInt8] = []
        do {
            let zip = try ZipStream(modified: 0) { sent += $0 }
            try zip.entry("noise.bin", bytes: noise)
            if isFinished { try zip.finish() }
        }
        #expect(!sent.isEmpty, "blocks went out while the entry was written")
        #expect(Self.hasEndOfCentralDirectory(sent) == isFinished)
        if isFinished {
            #expect(try ZipEntries.read(sent).map(\.bytes) == [noise])
        } else {
            #expect(sent.count < noise.count)
        }
    }
}
