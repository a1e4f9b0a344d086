import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import SleepCore
import Testing

/// `sleepledger import` and `user remove` against a running import of the same user, and
/// a real `sleepledger import -` whose standard input stalls.
@Suite("sleepledger import: stalled inputs and the import lock")
struct ImportLockCommandTests {
    static func annaID(_ fixture: ImportFixture) throws -> Int64 {
        Int64(try fixture.count("SELECT id FROM users WHERE handle = 'anna'"))
    }

    static let held = (0..<20).map { index in
        SleepSample(
            source: "Watch", start: 1_709_272_800 - Int64(index) * 900 - 600, end: 1_709_272_800 - Int64(index) * 900,
            stage: .core)
    }

    @Test("an import that finds the user's import running waits, then gives up with exit 75 naming it")
    func busyImport() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let file = try fixture.writeZip("export.zip", samples: generatedSamples(nights: 3))
        let running = HeldImport(
            conninfo: fixture.environment["DATABASE_URL"] ?? "", userID: try Self.annaID(fixture),
            fileName: "/exports/held.xml", samples: Self.held)
        let environment = fixture.environment.merging([Configuration.importLockWaitVariable: "0.5"]) { $1 }
        let attempts = finishing(within: 30) {
            (
                runTool(["import", "--user", "anna", file], environment: environment),
                runTool(["import", "--user", "anna", "--quiet", file], environment: environment)
            )
        }
        let first = try running.finish()
        #expect(attempts.didFinish, "the import waited for the running one without a limit")
        let ((code, captured), (quietCode, quiet)) = try #require(try attempts.finalResult(waiting: 60)?.get())

        #expect(code == .busy)
        #expect(code.rawValue == 75)
        let lines = captured.errorText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(captured.errorText)")
        #expect(
            lines.first?.hasPrefix(
                "sleepledger: \(file): waiting up to 0.5 s for import \(first.importID) of anna (held.xml, started ")
                == true)
        #expect(lines.first?.hasSuffix(" UTC) to finish") == true)
        #expect(
            lines.last?.hasPrefix("sleepledger: \(file): import \(first.importID) of anna (held.xml, started ") == true)
        #expect(
            lines.last?.hasSuffix(
                " UTC) still holds the user's import lock after 0.5 s; nothing was imported, try again when it has finished"
            )
                == true)
        // --quiet leaves out the note, not the error.
        #expect(quietCode == .busy)
        #expect(quiet.errorText.split(separator: "\n").count == 1)
        #expect(quiet.errorText.contains("still holds the user's import lock"))
        // Neither attempt is in the history; once the lock is free the import runs.
        #expect(try fixture.count("SELECT count(*) FROM imports") == 1)
        let (after, afterCaptured) = runTool(["import", "--user", "anna", "--quiet", file], environment: environment)
        #expect(after == .success, "\(afterCaptured.errorText)")
    }

    @Test("user remove during an import says what it waits for, then removes the user when the import ends")
    func removeWaits() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let running = HeldImport(
            conninfo: fixture.environment["DATABASE_URL"] ?? "", userID: try Self.annaID(fixture), fileName: "-",
            samples: Self.held)
        let captured = CapturedConsole()
        let environment = fixture.environment
        let removal = finishing(within: 1.5) {
            SleepLedgerTool.run(
                arguments: ["user", "remove", "anna", "--yes"], environment: environment, console: captured.console)
        }
        #expect(!removal.didFinish, "user remove did not wait for the import")
        let waitingNote = captured.errorText
        let first = try running.finish()
        let code = try #require(try removal.finalResult(waiting: 30)?.get())

        #expect(waitingNote.hasPrefix("sleepledger: waiting for import \(first.importID) of anna (-, started "))
        #expect(waitingNote.hasSuffix(" UTC) to finish\n"))
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.errorText == waitingNote)
        #expect(captured.printed == "removed anna and all of their data\n")
        #expect(try fixture.count("SELECT count(*) FROM users") == 0)
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
    }

    /// The finding as reported: `sleepledger import -` whose standard input sends part of
    /// an export and then nothing sat in its transaction (COPY, ClientRead) holding the
    /// user's lock for ever. Now it fails after the idle timeout and the next import runs.
    @Test(.timeLimit(.minutes(2)))
    func stalledStandardInputOfTheRealTool() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let samples = generatedSamples(nights: 30)
        let zip = try fixture.writeZip("export.zip", samples: samples)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: zip))

        let process = Process()
        process.executableURL = builtProductsDirectory().appendingPathComponent("sleepledger")
        process.arguments = ["import", "--user", "anna", "-"]
        var environment = ImportProcessTests.childEnvironment(fixture)
        environment[Configuration.importIdleTimeoutVariable] = "1"
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let clock = ContinuousClock()
        let started = clock.now
        try process.run()
        input.fileHandleForWriting.write(bytes.prefix(bytes.count / 2))  // the rest never comes
        var exited = false
        for _ in 0..<600 where !exited {
            exited = !process.isRunning
            if !exited { usleep(50_000) }
        }
        let seconds = started.duration(to: clock.now)
        if !exited {
            Issue.record("sleepledger import - still waits for its stalled standard input")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        #expect(process.terminationStatus == 66)
        #expect(
            message == "sleepledger: cannot read -: no data arrived for 1 s (the idle timeout); the input stalled\n")
        #expect(seconds < .seconds(20))
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == 0)
        #expect(
            try fixture.count(
                "SELECT count(*) FROM imports WHERE status = 'failed' AND from_standard_input AND error LIKE '%stalled'"
            )
                == 1)
        let (code, captured) = runTool(
            ["import", "--user", "anna", "--quiet", zip],
            environment: fixture.environment.merging([Configuration.importLockWaitVariable: "1"]) { $1 })
        #expect(code == .success, "\(captured.errorText)")
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == Set(samples.map(SampleKey.init)).count)
    }

    @Test(
        "the import settings come from the environment: seconds or a duration",
        arguments: [
            ([:], 300.0, 60.0),
            ([Configuration.importIdleTimeoutVariable: "90", Configuration.importLockWaitVariable: "0"], 90, 0),
            ([Configuration.importIdleTimeoutVariable: "5m", Configuration.importLockWaitVariable: "2.5"], 300, 2.5),
            (
                [Configuration.importIdleTimeoutVariable: " 0.25 ", Configuration.importLockWaitVariable: "1m30s"],
                0.25, 90
            ),
            ([Configuration.importIdleTimeoutVariable: "", Configuration.importLockWaitVariable: ""], 300, 60),
        ])
    func settings(variables: [String: String], idleTimeout: Double, lockWait: Double) throws {
        let configuration = try Configuration(
            environment: variables.merging(["DATABASE_URL": "postgresql://db/ledger"]) { $1 }, isTerminal: false)
        #expect(configuration.importIdleTimeoutSeconds == idleTimeout)
        #expect(configuration.importLockWaitSeconds == lockWait)
    }

    @Test(
        "a malformed import setting is a usage error naming the variable",
        arguments: [
            (Configuration.importIdleTimeoutVariable, "0"), (Configuration.importIdleTimeoutVariable, "-3"),
            (Configuration.importIdleTimeoutVariable, "soon"), (Configuration.importLockWaitVariable, "-1"),
            (Configuration.importLockWaitVariable, "inf"), (Configuration.importLockWaitVariable, "5 minutes"),
        ])
    func malformedSetting(variable: String, value: String) throws {
        let (code, captured) = runTool(
            ["user", "list"], environment: ["DATABASE_URL": "postgresql://db/ledger", variable: value])
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger: \(variable) must be a number of seconds"))
        #expect(captured.errorText.contains("'\(value)'"))
    }
}
