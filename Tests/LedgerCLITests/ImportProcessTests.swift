import Foundation
import LedgerCLI
import LedgerStore
import PostgresClient
import Testing

/// `sleepledger import` as a real child process: standard input, and a kill in the middle.
@Suite("sleepledger import (child process)")
struct ImportProcessTests {
    /// The environment of a child process: the fixture's database plus a PATH.
    static func childEnvironment(_ fixture: ImportFixture) -> [String: String] {
        var environment = fixture.environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return environment
    }

    static func importProcess(_ fixture: ImportFixture, input: Pipe) -> Process {
        let process = Process()
        process.executableURL = builtProductsDirectory().appendingPathComponent("sleepledger")
        process.arguments = ["import", "--user", "anna", "-"]
        process.environment = childEnvironment(fixture)
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    @Test func zipOnStandardInput() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let samples = generatedSamples(nights: 10)
        let zip = try Data(contentsOf: URL(fileURLWithPath: try fixture.writeZip("export.zip", samples: samples)))
        let process = Process()
        process.executableURL = builtProductsDirectory().appendingPathComponent("sleepledger")
        process.arguments = ["import", "--user", "anna", "--format", "json", "-"]
        process.environment = Self.childEnvironment(fixture)
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(zip)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let distinct = Set(samples.map(SampleKey.init)).count
        #expect(printed.contains("\"file\" : \"-\","))
        #expect(printed.contains("\"kind\" : \"zip\","))
        #expect(printed.contains("\"inserted\" : \(distinct),"))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == distinct)
        #expect(try fixture.count("SELECT count(*) FROM imports WHERE from_standard_input AND file_name = '-'") == 1)
    }

    /// Kill -9 while COPY is streaming: the transaction dies with the connection, so the
    /// database holds nothing from the run, and the next import succeeds.
    @Test(.timeLimit(.minutes(2))) func killedImportLeavesNothingBehind() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        var records: [String] = []
        let base: Int64 = 1_704_067_200  // 2024-01-01T00:00:00Z
        for index in 0..<20_000 {
            let start = base + Int64(index) * 600
            records.append(
                sleepRecord(
                    start: Self.appleDate(start), end: Self.appleDate(start + 300),
                    value: index % 2 == 0
                        ? "HKCategoryValueSleepAnalysisAsleepCore" : "HKCategoryValueSleepAnalysisAwake"))
        }
        let complete = exportXML(records)
        let head = String(complete.dropLast("</HealthData>\n".count))

        let input = Pipe()
        let process = Self.importProcess(fixture, input: input)
        try process.run()
        input.fileHandleForWriting.write(Data(head.utf8))  // the rest never comes

        let observer = try fixture.connection()
        defer { observer.close() }
        // Wait until rows reached the server: a COPY holding rows, or a batch already
        // merged into sleep_samples (uncommitted).
        var copied = 0
        for _ in 0..<600 where copied == 0 {
            copied =
                try observer.execute(
                    """
                    SELECT (SELECT coalesce(max(tuples_processed), 0) FROM pg_stat_progress_copy)
                        + (SELECT count(*) FROM pg_stat_activity
                            WHERE query LIKE 'TRUNCATE import_staging%' OR query LIKE 'WITH batch AS%')
                    """
                ).single().int(0) ?? 0
            if copied == 0 { usleep(50_000) }
        }
        #expect(copied > 0, "no row reached the server")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        try? input.fileHandleForWriting.close()
        // The server notices the dead client and rolls its transaction back.
        var busy = 1
        for _ in 0..<200 where busy > 0 {
            busy =
                try observer.execute(
                    """
                    SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (query LIKE 'COPY import_staging%'
                        OR query LIKE 'TRUNCATE import_staging%' OR query LIKE 'WITH batch AS%')
                    """
                ).single().int(0) ?? 0
            if busy > 0 { usleep(50_000) }
        }
        #expect(busy == 0)
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
        #expect(try fixture.count("SELECT count(*) FROM imports") == 0)
        #expect(try fixture.count("SELECT count(*) FROM rollup_state WHERE dirty_from IS NOT NULL") == 0)

        let file = try fixture.write("export.xml", complete)
        let (code, captured) = runTool(["import", "--user", "anna", file], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 20_000)
        #expect(try fixture.count("SELECT count(*) FROM imports WHERE status = 'succeeded'") == 1)
    }

    /// `2024-01-01 00:00:00 +0000`.
    static func appleDate(_ epochSeconds: Int64) -> String {
        String(SQLValue.utcTimestampText(epochSeconds: epochSeconds).dropLast(3)) + " +0000"
    }
}
