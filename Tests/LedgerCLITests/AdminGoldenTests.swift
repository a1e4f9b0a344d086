import Foundation
import LedgerCLI
import Testing

/// Golden-file tests of the admin tool's text output for the fixed generated users of
/// ``AdminFixture``. Re-record on purpose only, with `SLEEPLEDGER_RECORD_GOLDEN=1`, and
/// review the files by eye before committing.
@Suite("sleepledger-admin golden text output")
struct AdminGoldenTests {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Golden")

    static let cases: [(String, [String])] = [
        ("users", ["users"]),
        ("users-sort-debt", ["users", "--sort", "debt"]),
        ("users-severity-critical", ["users", "--severity", "critical"]),
        ("summary-anna-weekly", ["summary", "anna"]),
        ("summary-anna-monthly", ["summary", "anna", "--horizon", "monthly"]),
        ("summary-anna-daily", ["summary", "anna", "--horizon", "daily"]),
        ("summary-dan-weekly", ["summary", "dan"]),
        ("summary-anna-as-of", ["summary", "anna", "--as-of", "2025-02-10"]),
        ("summary-cara-no-nights", ["summary", "cara"]),
        ("summary-ben-never-rolled-up", ["summary", "ben"]),
        ("debt-anna-weekly", ["debt", "anna"]),
        ("debt-anna-yearly", ["debt", "anna", "--horizon", "yearly"]),
        ("nights-anna-week-naps", ["nights", "anna", "--from", "2025-02-03", "--to", "2025-02-09", "--naps"]),
        ("imports-anna", ["imports", "anna"]),
        ("imports-dan-none", ["imports", "dan"]),
        ("chart-anna-debt", ["chart", "anna", "--kind", "debt", "--horizon", "monthly", "--output", chartPath]),
    ]

    static let chartPath = "/tmp/sleepledger-admin-golden-chart.svg"

    @Test("the weekly duration chart's SVG matches the golden file")
    func goldenChart() throws {
        let fixture = try AdminFixture.shared()
        let path = "/tmp/sleepledger-admin-golden-\(UUID().uuidString).svg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (code, captured) = runAdmin(
            ["chart", "anna", "--kind", "duration", "--output", path], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        try Self.compare(try String(contentsOfFile: path, encoding: .utf8), golden: "chart-anna-duration-weekly.svg")
    }

    @Test("text output matches the golden file", arguments: cases.map(\.0))
    func golden(name: String) throws {
        let fixture = try AdminFixture.shared()
        let arguments = try #require(Self.cases.first { $0.0 == name }).1
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.errorText.isEmpty)
        try Self.compare(captured.printed, golden: name + ".txt")
    }

    /// Compares `actual` with the golden file, or records it when asked to.
    static func compare(_ actual: String, golden name: String) throws {
        let url = goldenFolder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["SLEEPLEDGER_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: goldenFolder, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            // Recording checks nothing: say so, so a recording run never passes as a test run.
            Issue.record("recorded Golden/\(name); review the diff and run again without SLEEPLEDGER_RECORD_GOLDEN")
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            actual == expected,
            "output differs from Golden/\(name); re-record with SLEEPLEDGER_RECORD_GOLDEN=1 only on purpose")
    }
}
