import Testing

@testable import LedgerCLI

@Suite("--job-cpu durations")
struct JobCPUOptionTests {
    @Test(
        "a duration is seconds, or a number with ms, s, m, min or h",
        arguments: [
            ("600", 600.0), ("0.5", 0.5), ("90s", 90), ("250ms", 0.25), ("10m", 600), ("10min", 600), ("1h", 3600),
            ("1.5h", 5400), ("0.000001", 0.000_001),
        ])
    func durations(text: String, seconds: Double) {
        #expect(JobCPUOption.seconds(text) == seconds)
    }

    @Test("the default is ten minutes", arguments: [["serve"], ["worker"]])
    func defaultBudget(command: [String]) throws {
        let arguments = try Arguments([], options: [JobCPUOption.name], flags: [], usage: "")
        #expect(try JobCPUOption.readerOptions(arguments, usage: "").maximumCPUSeconds == 600)
        let (code, captured) = runTool(command + ["--help"])
        #expect(code == .success)
        #expect(captured.printed.contains("--job-cpu DURATION"))
    }
}
