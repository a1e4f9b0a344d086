import Foundation
import LedgerCLI
import Testing

/// Every date option (`--as-of`, `--from`, `--to`) takes 1900-01-01 through 2199-12-31;
/// anything else is a usage error (exit 64) naming the range, before any work. The edges
/// themselves work.
@Suite("Date options")
struct DateOptionTests {
    static let outside = ["0001-01-01", "0000-01-01", "1899-12-31", "2200-01-01", "9999-12-31", "-001-01-01"]

    /// Admin command lines with `DATE` where the date goes, and the option's name.
    static let adminLines: [([String], String)] = [
        (["summary", "anna", "--as-of", "DATE"], "as-of"),
        (["debt", "anna", "--as-of", "DATE"], "as-of"),
        (["users", "--as-of", "DATE"], "as-of"),
        (
            [
                "chart", "anna", "--kind", "debt", "--as-of", "DATE", "--output",
                FileManager.default.temporaryDirectory.appendingPathComponent("never-written.svg").path,
            ], "as-of"
        ),
        (["nights", "anna", "--from", "DATE"], "from"),
        (["nights", "anna", "--to", "DATE"], "to"),
    ]

    static func message(_ option: String, _ date: String) -> String {
        "--\(option) must be a date YYYY-MM-DD from 1900-01-01 through 2199-12-31, not '\(date)'"
    }

    @Test("sleepledger rollup --as-of outside the range: exit 64 naming the range", arguments: outside)
    func rollupOutside(date: String) throws {
        let (environment, _) = try RollupCommandTests.environment()
        try RollupCommandTests.seed(environment["DATABASE_URL"] ?? "", users: 1, nights: 3)
        let (code, captured) = runTool(["rollup", "--as-of", date], environment: environment)
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger: \(Self.message("as-of", date))\n"))
        #expect(captured.errorText.contains("Usage: sleepledger rollup"))
        #expect(captured.printed.isEmpty)
    }

    @Test(
        "sleepledger rollup --as-of the first and the last supported day: exit 0",
        arguments: ["1900-01-01", "2199-12-31"])
    func rollupEdges(date: String) throws {
        let (environment, _) = try RollupCommandTests.environment()
        try RollupCommandTests.seed(environment["DATABASE_URL"] ?? "", users: 2, nights: 3)
        let (code, captured) = runTool(["rollup", "--as-of", date], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.hasPrefix("rollup: 2 users done"))
    }

    @Test(
        "sleepledger-admin date options outside the range: exit 64 naming the range",
        arguments: adminLines, outside)
    func adminOutside(line: ([String], String), date: String) throws {
        let fixture = try AdminFixture.shared()
        let arguments = line.0.map { $0 == "DATE" ? date : $0 }
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger-admin: \(Self.message(line.1, date))\n"))
        #expect(captured.printed.isEmpty)
    }

    @Test(
        "sleepledger-admin as of the edges and over the whole range: exit 0",
        arguments: [
            ["summary", "anna", "--as-of", "1900-01-01"], ["summary", "anna", "--as-of", "2199-12-31"],
            ["debt", "anna", "--horizon", "10y", "--as-of", "1900-01-01", "--format", "csv"],
            ["users", "--as-of", "1900-01-01"], ["users", "--as-of", "2199-12-31"],
            ["nights", "anna", "--from", "1900-01-01", "--to", "2199-12-31", "--naps"],
        ])
    func adminEdges(arguments: [String]) throws {
        let fixture = try AdminFixture.shared()
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(!captured.printed.isEmpty)
    }
}
