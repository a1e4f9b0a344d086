import Foundation
import HealthImport
import LedgerStore
import PostgresClient
import SleepCore
import Testing

@testable import LedgerCLI

@Suite("sleepledger import")
struct ImportCommandTests {
    @Test func zipImportStoresEachDistinctSampleOnceAndReimportAddsNothing() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let samples = generatedSamples(nights: 20)
        let distinct = Set(samples.map(SampleKey.init)).count
        let zip = try fixture.writeZip("export.zip", samples: samples)

        var (code, captured) = runTool(["import", "--user", "anna", zip], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == distinct)
        #expect(captured.printed.contains("  inserted            \(distinct)\n"))
        #expect(captured.printed.contains("  accepted            \(samples.count)\n"))
        let connection = try fixture.connection()
        defer { connection.close() }
        let row = try connection.execute(
            """
            SELECT status, kind, sha256, size_bytes, samples_read, samples_accepted, samples_inserted,
                samples_duplicate, samples_rejected, entry_name, finished_at IS NOT NULL AS finished,
                (stage_counts->>'core')::int AS core, duration_seconds IS NOT NULL AS timed
            FROM imports
            """
        ).single()
        #expect(try row.string("status") == "succeeded")
        #expect(try row.string("kind") == "zip")
        #expect(try row.string("sha256")?.count == 64)
        #expect(try row.int("size_bytes") == (try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int))
        #expect(try row.int("samples_read") == samples.count)
        #expect(try row.int("samples_inserted") == distinct)
        #expect(try row.int("samples_duplicate") == samples.count - distinct)
        #expect(try row.int("samples_rejected") == 0)
        #expect(try row.string("entry_name") == "apple_health_export/export.xml")
        #expect(try row.bool("finished") == true)
        #expect(try row.int("core") == samples.filter { $0.stage == .core }.count)

        (code, captured) = runTool(["import", "--user", "anna", zip], environment: fixture.environment)
        #expect(code == .success)
        #expect(captured.printed.contains("  inserted            0\n"))
        #expect(captured.printed.hasSuffix("nothing new: all \(samples.count) samples were already imported\n"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == distinct)
        #expect(try fixture.count("SELECT count(*) FROM imports WHERE status = 'succeeded'") == 2)
    }

    @Test func laterExportInsertsOnlyTheNewNights() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let all = generatedSamples(nights: 30)
        let cutoff = all.map(\.end).sorted()[all.count / 2]
        let earlier = all.filter { $0.end <= cutoff }
        let earlierKeys = Set(earlier.map(SampleKey.init))
        let newKeys = Set(all.map(SampleKey.init)).subtracting(earlierKeys)
        #expect(!newKeys.isEmpty)
        let first = try fixture.writeZip("first.zip", samples: earlier)
        let later = try fixture.writeZip("later.zip", samples: all)

        #expect(runTool(["import", "--user", "anna", first], environment: fixture.environment).0 == .success)
        let (code, captured) = runTool(
            ["import", "--user", "anna", "--format", "json", later], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("\"inserted\" : \(newKeys.count),"))
        #expect(captured.printed.contains("\"duplicates\" : \(all.count - newKeys.count),"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == earlierKeys.count + newKeys.count)
        let secondImport = try fixture.count("SELECT max(id) FROM imports")
        #expect(
            try fixture.count("SELECT count(*) FROM sleep_samples WHERE import_id = \(secondImport)") == newKeys.count)
    }

    /// Hand-written records: the wake day of a sample is the local date of its end in its
    /// own zone, else the user's zone; dirty_from is the earliest one minus one day.
    @Test func badRecordsAreCountedWithFileAndLineAndTheRestImports() throws {
        let fixture = try ImportFixture(timeZone: "Asia/Tokyo")
        defer { fixture.remove() }
        let xml = exportXML([
            // line 3: ends 2024-03-01 22:00Z = 2024-03-02 07:00 in Tokyo (the user's zone).
            sleepRecord(
                start: "2024-03-01 15:00:00 +0100", end: "2024-03-01 23:00:00 +0100",
                value: "HKCategoryValueSleepAnalysisAsleepCore"),
            // line 4: unknown value
            sleepRecord(
                start: "2024-03-02 23:00:00 +0100", end: "2024-03-03 06:00:00 +0100",
                value: "HKCategoryValueSleepAnalysisNap"),
            // line 5: the same sample as line 3: a duplicate
            sleepRecord(
                start: "2024-03-01 15:00:00 +0100", end: "2024-03-01 23:00:00 +0100",
                value: "HKCategoryValueSleepAnalysisAsleepCore"),
            // line 6: its own zone (Amsterdam); ends 2024-02-29 23:30 local: wake day 2024-02-29.
            sleepRecord(
                start: "2024-02-29 22:00:00 +0100", end: "2024-02-29 23:30:00 +0100",
                value: "HKCategoryValueSleepAnalysisInBed", zone: "Europe/Amsterdam"),
            // line 9: end before start
            sleepRecord(
                start: "2024-03-04 06:00:00 +0100", end: "2024-03-04 05:00:00 +0100",
                value: "HKCategoryValueSleepAnalysisAsleepDeep"),
        ])
        let file = try fixture.write("export.xml", xml)
        let (code, captured) = runTool(["import", "--user", "anna", file], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        let text = captured.printed
        #expect(text.contains("  accepted            3\n"))
        #expect(text.contains("  rejected            2\n"))
        #expect(text.contains("  duplicates          1\n"))
        #expect(text.contains("  inserted            2\n"))
        #expect(text.contains("  rollups dirty from  2024-02-28\n"))
        #expect(text.contains("  \(file):4: unknown sleep value \"HKCategoryValueSleepAnalysisNap\"\n"))
        #expect(text.contains("  \(file):9: endDate"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 2)
        let connection = try fixture.connection()
        defer { connection.close() }
        #expect(
            try connection.execute("SELECT dirty_from FROM rollup_state").single().localDate(0)
                == LocalDate("2024-02-28"))
        let stored = try connection.execute(
            "SELECT samples_rejected, diagnostics->0->>'line' AS line, diagnostics->0->>'reason' AS reason FROM imports"
        ).single()
        #expect(try stored.int("samples_rejected") == 2)
        #expect(try stored.int("line") == 4)
        #expect(try stored.string("reason") == "unknown sleep value \"HKCategoryValueSleepAnalysisNap\"")
    }

    @Test func dirtyFromOnlyMovesEarlierAndUsesTheUsersZone() throws {
        let fixture = try ImportFixture(timeZone: "Europe/Amsterdam")
        defer { fixture.remove() }
        // Ends 2024-03-01 22:00Z = 23:00 in Amsterdam: wake day 2024-03-01, dirty from 2024-02-29.
        let late = try fixture.write(
            "late.xml",
            exportXML([
                sleepRecord(start: "2024-03-01 15:00:00 +0100", end: "2024-03-01 23:00:00 +0100", value: "AsleepCore")
            ]))
        // Ends 2024-03-10: marks from 2024-03-09, which must not move dirty_from later.
        let later = try fixture.write(
            "later.xml",
            exportXML([
                sleepRecord(start: "2024-03-10 01:00:00 +0100", end: "2024-03-10 07:00:00 +0100", value: "AsleepCore")
            ]))
        #expect(runTool(["import", "--user", "anna", late], environment: fixture.environment).0 == .success)
        #expect(runTool(["import", "--user", "anna", later], environment: fixture.environment).0 == .success)
        let connection = try fixture.connection()
        defer { connection.close() }
        #expect(
            try connection.execute("SELECT dirty_from FROM rollup_state").single().localDate(0)
                == LocalDate("2024-02-29"))
    }

    @Test func strictTurnsARejectionIntoAFailedImport() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let file = try fixture.write(
            "export.xml",
            exportXML([
                sleepRecord(start: "2024-03-01 23:00:00 +0100", end: "2024-03-02 07:00:00 +0100", value: "AsleepCore"),
                sleepRecord(start: "2024-03-02 23:00:00 +0100", end: "2024-03-03 07:00:00 +0100", value: "Snoozing"),
            ]))
        let (code, captured) = runTool(
            ["import", "--user", "anna", "--strict", file], environment: fixture.environment)
        #expect(code == .dataError)
        #expect(
            captured.errorText
                == "sleepledger: \(file): --strict: 1 record rejected, nothing imported; first: \(file):4: unknown sleep value \"Snoozing\"\n"
        )
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
        #expect(try fixture.count("SELECT count(*) FROM imports WHERE status = 'failed' AND samples_rejected = 1") == 1)
        #expect(try fixture.count("SELECT count(*) FROM rollup_state WHERE dirty_from IS NOT NULL") == 0)
    }

    @Test func badFileExits65StoresNothingAndIsRecordedAsFailed() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        // A sleep record, then the file stops before </HealthData>.
        let truncated =
            "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_NL\">\n"
            + sleepRecord(start: "2024-03-01 23:00:00 +0100", end: "2024-03-02 07:00:00 +0100", value: "AsleepCore")
        let file = try fixture.write("export.xml", truncated)
        let (code, captured) = runTool(["import", "--user", "anna", file], environment: fixture.environment)
        #expect(code == .dataError)
        let lines = captured.errorText.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("sleepledger: \(file)") == true)
        #expect(captured.errorText.contains("truncated or damaged"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
        let connection = try fixture.connection()
        defer { connection.close() }
        let row = try connection.execute("SELECT status, error, file_name, samples_inserted FROM imports").single()
        #expect(try row.string("status") == "failed")
        #expect(try row.string("error") == String(lines.first?.dropFirst("sleepledger: ".count) ?? ""))
        #expect(try row.string("file_name") == file)
        #expect(try row.int("samples_inserted") == 0)
    }

    @Test func dryRunReadsAndWritesNothing() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let samples = generatedSamples(nights: 5)
        let zip = try fixture.writeZip("export.zip", samples: samples)
        let (code, captured) = runTool(
            ["import", "--user", "anna", "--dry-run", zip], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.hasPrefix("dry run, nothing written: \(zip): zip"))
        #expect(captured.printed.contains("  accepted            \(samples.count)\n"))
        #expect(!captured.printed.contains("inserted"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
        #expect(try fixture.count("SELECT count(*) FROM imports") == 0)
    }

    @Test func unknownUserAndMissingFileExit66() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let file = try fixture.write(
            "export.xml",
            exportXML([
                sleepRecord(start: "2024-03-01 23:00:00 +0100", end: "2024-03-02 07:00:00 +0100", value: "AsleepCore")
            ]))
        var (code, captured) = runTool(["import", "--user", "nobody", file], environment: fixture.environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger: no user with handle 'nobody'\n")
        let missing = fixture.path("missing.zip")
        (code, captured) = runTool(["import", "--user", "anna", missing], environment: fixture.environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger: cannot read \(missing): no such file\n")
        #expect(try fixture.count("SELECT count(*) FROM imports") == 0)
    }

    @Test(arguments: [
        (["import", "anna.zip"], "import needs --user HANDLE"),
        (["import", "--user", "anna"], "import needs at least one FILE (or - for standard input)"),
        (["import", "--user", "anna", "-", "-"], "standard input (-) can be imported only once per run"),
        (["import", "--user", "anna", "--format", "csv", "x.zip"], "--format must be one of text|json, not 'csv'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let (code, captured) = runTool(arguments, environment: [:])
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger: \(message)\n"))
    }

    @Test func progressLineShowsBytesRateSamplesAndTimeLeft() {
        let progress = ImportProgress(
            inputBytesRead: 12_300_000, inputBytesTotal: 36_000_000, recordsSeen: 40_000, sleepRecords: 1234)
        let text = ImportProgressLine.text(progress, name: "export.zip", elapsed: .seconds(1))
        #expect(text == "export.zip  12.3 of 36.0 MB (34%)  12.3 MB/s  1234 sleep samples  ETA 0:02")
    }
}

@Suite("sleepledger import, seen by sleepledger-admin imports")
struct ImportAdminTests {
    /// A failed import of an unreadable file has no kind, size or SHA-256; the admin
    /// history still lists it, and an importer diagnostic reads `file:line: reason`.
    @Test func failedAndPartlyRejectedImportsAreListed() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let bad = try fixture.write("notes.txt", "just some notes\n")
        #expect(runTool(["import", "--user", "anna", bad], environment: fixture.environment).0 == .dataError)
        let good = try fixture.write(
            "export.xml",
            exportXML([
                sleepRecord(start: "2024-03-01 23:00:00 +0100", end: "2024-03-02 07:00:00 +0100", value: "AsleepCore"),
                sleepRecord(start: "2024-03-02 23:00:00 +0100", end: "2024-03-03 07:00:00 +0100", value: "Napping"),
            ]))
        #expect(runTool(["import", "--user", "anna", good], environment: fixture.environment).0 == .success)

        let readOnly = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: fixture.environment["DATABASE_URL"] ?? "")
        let (code, captured) = runAdmin(
            ["imports", "anna", "--format", "json"],
            environment: [
                "SLEEPLEDGER_ADMIN_DATABASE_URL": readOnly,
                "SLEEPLEDGER_MIGRATIONS": fixture.environment["SLEEPLEDGER_MIGRATIONS"] ?? "",
            ])
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("\"kind\" : \"unknown\""))
        #expect(captured.printed.contains("\"status\" : \"failed\""))
        #expect(captured.printed.contains("\(good):4: unknown sleep value \\\"Napping\\\""))
    }
}
