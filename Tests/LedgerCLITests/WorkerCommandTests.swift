import LedgerCLI
import Testing

@Suite("sleepledger worker options")
struct WorkerCommandTests {
    /// A job records its spool file's full path, so the worker takes no spool folder: an
    /// option that did nothing is refused, not silently accepted.
    @Test(
        "bad options are usage errors (64) before any database is touched",
        arguments: [
            ["worker", "--spool", "/tmp/spool"], ["worker", "extra"],
        ])
    func badInvocations(arguments: [String]) {
        let (code, captured) = runTool(arguments)
        #expect(code == .usage, "\(captured.errorText)")
        #expect(captured.errorText.hasPrefix("sleepledger: "))
    }

    @Test func usageNamesOnlyTheOptionsItHonours() {
        let (code, captured) = runTool(["worker", "--help"])
        #expect(code == .success)
        #expect(captured.printed.contains("--shared-spool"))
        #expect(!captured.printed.contains("--spool "))
    }
}
