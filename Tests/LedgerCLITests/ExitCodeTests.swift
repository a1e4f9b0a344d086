import LedgerCLI
import Testing

@Suite("Exit codes and help")
struct ExitCodeTests {
    @Test func exitCodesFollowSysexits() {
        #expect(ExitCode.success.rawValue == 0)
        #expect(ExitCode.usage.rawValue == 64)
        #expect(ExitCode.dataError.rawValue == 65)
        #expect(ExitCode.noInput.rawValue == 66)
        #expect(ExitCode.unavailable.rawValue == 69)
        #expect(ExitCode.internalError.rawValue == 70)
        #expect(ExitCode.busy.rawValue == 75)
        #expect(ExitCode.permissionDenied.rawValue == 77)
    }

    @Test(arguments: [
        ["--help"], ["db", "--help"], ["migrate", "--help"], ["user", "--help"], ["user", "add", "--help"],
        ["token", "--help"],
    ])
    func everyCommandHasHelp(arguments: [String]) {
        let (code, captured) = runTool(arguments)
        #expect(code == .success)
        #expect(captured.printed.contains("Usage: sleepledger"))
        #expect(captured.errorText.isEmpty)
    }

    @Test(arguments: [[], ["frobnicate"], ["user"], ["user", "add"], ["db", "explode"], ["migrate", "--bogus"]])
    func usageErrorsExit64(arguments: [String]) {
        let (code, captured) = runTool(arguments, environment: ["SLEEPLEDGER_HOME": "/nonexistent/never"])
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger: ") || captured.errorText.hasPrefix("Usage:"))
    }

    @Test func versionOfBothExecutables() throws {
        let main = try runProcess("sleepledger", ["--version"], environment: [:])
        #expect(main.status == 0)
        #expect(main.output == "sleepledger \(SleepLedgerVersion.current)\n")
        let admin = try runProcess("sleepledger-admin", ["--version"], environment: [:])
        #expect(admin.status == 0)
        #expect(admin.output == "sleepledger-admin \(SleepLedgerVersion.current)\n")
        let unknown = try runProcess("sleepledger-admin", ["nope"], environment: [:])
        #expect(unknown.status == 64)
    }

    @Test func unreachableDatabaseExits69() throws {
        let result = try runProcess(
            "sleepledger", ["user", "list"],
            environment: ["DATABASE_URL": "postgresql:///sleepledger?host=/nonexistent/socket/dir"])
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("sleepledger: "))
        #expect(result.error.split(separator: "\n").count == 1)
    }
}
