import LedgerCLI
import SleepReports
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

    @Test(arguments: [
        ("8h", Int64(28_800)), ("7h30m", 27_000), ("450m", 27_000), ("7.5h", 27_000),
        ("7h 25m", 26_700), ("90s", 90), ("0.5h", 1_800),
    ])
    func parsesDurations(text: String, seconds: Int64) {
        #expect(SleepDuration.parse(text) == seconds)
    }

    @Test(arguments: ["", "8", "h", "8x", "8hh", "7h7h", "-1h", "abc", "49h", "8h30"])
    func rejectsMalformedDurations(text: String) {
        #expect(SleepDuration.parse(text) == nil)
    }

    @Test(arguments: [
        (Int64(26_700), "7h 25m"), (28_800, "8h"), (1_740, "29m"), (-3_600, "-1h"), (29, "0m"), (30, "1m"),
    ])
    func formatsDurations(seconds: Int64, text: String) {
        #expect(SleepDuration.format(seconds: seconds) == text)
    }
}
