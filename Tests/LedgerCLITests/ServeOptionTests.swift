import LedgerCLI
import Testing

@Suite("sleepledger serve options")
struct ServeOptionTests {
    /// Sizes that do not fit 64 bits are refused as a usage error, never an overflow that
    /// stops the process (issue 20, F14); so are sizes that are no size.
    @Test(
        "a size past 8 EiB, or no size at all, is a usage error (64) before anything starts",
        arguments: ["9999999999G", "9223372036854775807K", "8589934592GiB", "0", "-1", "12XB", "GiB"])
    func sizes(text: String) {
        for option in ["max-upload", "min-free"] {
            let (code, captured) = runTool(["serve", "--\(option)", text], environment: [:])
            #expect(code == .usage, "--\(option) \(text)")
            #expect(captured.errorText.contains("--\(option) must be a size such as 8GiB"), "\(captured.errorText)")
        }
    }

    /// The connection limits (issue 20, F1): values that cannot work are refused before
    /// anything starts, each naming what is wrong.
    @Test(
        "connection limits that cannot work are usage errors (64) naming the limit",
        arguments: [
            (["--head-timeout", "0"], "the head timeout must be at least 1 second"),
            (["--body-rate-window", "0"], "the body rate window must be at least 1 second"),
            (["--max-anonymous", "0"], "the requests without an account must be at least 1"),
            (["--db-sessions", "1"], "the database sessions must be at least 2"),
            (["--db-sessions", "4", "--workers", "4"], "must be more than the workers"),
            (["--min-body-rate", "fast"], "--min-body-rate must be a size"),
            (["--hsts-max-age", "-5"], "--hsts-max-age must be a whole number"),
            (["--exports", "0"], "exports at once must be at least 1"),
        ])
    func connectionLimits(arguments: [String], message: String) {
        let (code, captured) = runTool(["serve"] + arguments, environment: [:])
        #expect(code == .usage, "\(arguments)")
        #expect(captured.errorText.contains(message), "\(captured.errorText)")
    }

    /// `--job-cpu` (issue 20, F2) takes a duration above zero; anything else is a usage
    /// error naming the option, before anything starts.
    @Test(
        "a --job-cpu that is no duration above zero is a usage error (64), for serve and worker",
        arguments: ["0", "10x", "m", "1e3", "nan", "inf", "2000000000"])
    func jobCPU(text: String) {
        for command in ["serve", "worker"] {
            let (code, captured) = runTool([command, "--job-cpu", text], environment: [:])
            #expect(code == .usage, "\(command) --job-cpu \(text)")
            #expect(captured.errorText.contains("--job-cpu must be a duration above zero"), "\(captured.errorText)")
        }
    }
}
