import Foundation
import LedgerCLI
import Testing

/// Error cases: one line, the right exit code, never a stack trace or an unexplained
/// empty result.
@Suite("sleepledger-admin errors")
struct AdminErrorTests {
    @Test(
        "an unknown user is one line and exit 66",
        arguments: [
            ["summary", "nobody"], ["debt", "nobody"], ["nights", "nobody"], ["imports", "nobody"],
            ["chart", "nobody", "--kind", "debt", "--output", "/tmp/never-written.svg"],
        ])
    func unknownUser(arguments: [String]) throws {
        let fixture = try AdminFixture.shared()
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger-admin: no user with handle 'nobody'\n")
        #expect(captured.printed.isEmpty)
    }

    @Test(
        "usage errors exit 64 with the command's usage",
        arguments: [
            ["frobnicate"], ["summary"], ["summary", "anna", "--horizon", "fortnight"],
            ["summary", "anna", "--format", "csv"], ["debt", "anna", "--as-of", "17.03.2025"],
            ["users", "--sort", "age"], ["users", "--severity", "bad"],
            ["nights", "anna", "--from", "2025-03-10", "--to", "2025-03-01"],
            ["summary", "anna", "ben"],
        ])
    func usage(arguments: [String]) throws {
        let fixture = try AdminFixture.shared()
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger-admin: "))
        #expect(captured.errorText.contains("Usage: sleepledger-admin"))
        #expect(captured.printed.isEmpty)
    }

    @Test("a user with no nights, or never rolled up: a message naming what to run, exit 0, in every command")
    func nothingToShow() throws {
        let fixture = try AdminFixture.shared()
        for handle in ["ben", "cara"] {
            for arguments in [["summary", handle], ["debt", handle], ["nights", handle]] {
                let (code, captured) = runAdmin(arguments, environment: fixture.environment)
                #expect(code == .success)
                #expect(captured.printed.contains("sleepledger rollup"), "\(arguments): \(captured.printed)")
                #expect(captured.printed.split(separator: "\n").count == 1)
            }
            // JSON and CSV stay parseable: the explanation goes to standard error.
            let (code, captured) = runAdmin(["debt", handle, "--format", "csv"], environment: fixture.environment)
            #expect(code == .success)
            #expect(captured.printed.isEmpty)
            #expect(captured.errorText.contains("sleepledger rollup"))
        }
    }

    @Test("--help on every command prints its usage without connecting")
    func help() {
        for command in ["users", "summary", "debt", "nights", "chart", "imports"] {
            let (code, captured) = runAdmin([command, "--help"], environment: ["SLEEPLEDGER_HOME": "/nonexistent"])
            #expect(code == .success)
            #expect(captured.printed.hasPrefix("Usage: sleepledger-admin \(command)"))
        }
    }

    @Test("the built executable: --version, and an unreachable database is one line, exit 69")
    func process() throws {
        let version = try runProcess("sleepledger-admin", ["--version"], environment: [:])
        #expect(version.status == 0)
        #expect(version.output == "sleepledger-admin 0.1.0\n")
        let failed = try runProcess(
            "sleepledger-admin", ["users"],
            environment: ["SLEEPLEDGER_ADMIN_DATABASE_URL": "host=/nonexistent-socket-folder dbname=x user=y"])
        #expect(failed.status == 69)
        #expect(failed.error.hasPrefix("sleepledger-admin: "))
        #expect(failed.error.split(separator: "\n").count == 1)
    }
}

/// A person whose samples formed no night (all naps, or too short) is told so, not told
/// to import what they already imported.
@Suite("sleepledger-admin for samples without nights")
struct AdminSamplesWithoutNightsTests {
    @Test(
        "summary and debt print one clear line on standard output and exit 0",
        arguments: [
            ["summary", "eve"], ["debt", "eve"], ["summary", "eve", "--as-of", "2024-03-01"],
            ["debt", "eve", "--horizon", "monthly"], ["nights", "eve"],
        ])
    func clearLine(arguments: [String]) throws {
        let fixture = try ImportFixture(handle: "eve", timeZone: "UTC")
        defer { fixture.remove() }
        // Twenty minutes asleep: a nap, not a night.
        let nap = try fixture.write(
            "nap.csv",
            """
            sourceName,startDate,endDate,value
            Watch,2024-02-29T13:00:00Z,2024-02-29T13:20:00Z,HKCategoryValueSleepAnalysisAsleepCore

            """)
        #expect(runTool(["import", "--user", "eve", "--quiet", nap], environment: fixture.environment).0 == .success)
        #expect(runTool(["rollup", "--as-of", "2024-03-01"], environment: fixture.environment).0 == .success)
        var environment = fixture.environment
        environment["SLEEPLEDGER_ADMIN_DATABASE_URL"] = fixture.readOnlyURL
        let (code, captured) = runAdmin(arguments, environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.errorText.isEmpty)
        #expect(
            captured.printed
                == "eve has sleep samples but no nights: none of them formed a night (docs/sleep-rules.md); import a fuller export with `sleepledger import --user eve FILE`, then run `sleepledger rollup`.\n"
        )
    }
}
