import LedgerCLI
import Testing

@Suite("Argument parsing")
struct ArgumentsTests {
    @Test func separatesPositionalsOptionsAndFlags() throws {
        let arguments = try Arguments(
            ["add", "anna", "--time-zone", "Europe/Berlin", "--target=7h30m", "--yes", "-"],
            options: ["time-zone", "target"], flags: ["yes"], usage: "u")
        #expect(arguments.positionals == ["add", "anna", "-"])
        #expect(arguments.value("time-zone") == "Europe/Berlin")
        #expect(arguments.value("target") == "7h30m")
        #expect(arguments.has("yes"))
        #expect(!arguments.has("help"))
    }

    @Test func doubleDashEndsOptions() throws {
        let arguments = try Arguments(["--", "--not-an-option"], usage: "u")
        #expect(arguments.positionals == ["--not-an-option"])
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["-x"], "unknown option '-x'"),
        (["--target"], "option '--target' needs a value"),
        (["--yes=1"], "option '--yes' takes no value"),
    ])
    func rejectsMalformedCommandLines(words: [String], message: String) {
        #expect(throws: CLIError.self) {
            try Arguments(words, options: ["target"], flags: ["yes"], usage: "u")
        }
        do {
            _ = try Arguments(words, options: ["target"], flags: ["yes"], usage: "u")
        } catch {
            #expect(error.message == message)
            #expect(error.exitCode == .usage)
        }
    }
}
