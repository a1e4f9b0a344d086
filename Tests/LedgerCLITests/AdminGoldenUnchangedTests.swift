import Foundation
import Testing

/// Issue 24: under the default settings every existing figure is unchanged. The golden
/// files changed only by added lines (need, chronotype, confidence) and an added column
/// (the nights' confidence); with those removed, the output is exactly the golden file as
/// it was before (Golden/before-issue-24).
@Suite("sleepledger-admin output without issue 24's additions is as before")
struct AdminGoldenUnchangedTests {
    static let beforeFolder = AdminGoldenTests.goldenFolder.appendingPathComponent("before-issue-24")

    /// `text` without the block of lines from `Own need` through the blank line after it,
    /// and without the `CONFIDENCE` column of a table whose header has it.
    static func withoutAdditions(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        if let start = lines.firstIndex(where: { $0.hasPrefix("Own need ") }) {
            var end = start
            while end < lines.count, !lines[end].isEmpty { end += 1 }
            lines.removeSubrange(start...min(end, lines.count - 1))
        }
        var column: Int?
        for index in lines.indices {
            let line = lines[index]
            if let range = line.range(of: "  CONFIDENCE") {
                column = line.distance(from: line.startIndex, to: range.lowerBound)
            } else if line.isEmpty {
                column = nil
                continue
            }
            guard let cut = column, line.count > cut else { continue }
            var kept = String(line.prefix(cut))
            while kept.hasSuffix(" ") { kept.removeLast() }
            lines[index] = kept
        }
        return lines.joined(separator: "\n")
    }

    @Test(
        "each golden output, additions removed, equals its file from before issue 24",
        arguments: AdminGoldenTests.cases.map(\.0))
    func unchanged(name: String) throws {
        let before = Self.beforeFolder.appendingPathComponent(name + ".txt")
        guard FileManager.default.fileExists(atPath: before.path) else {
            Issue.record("no Golden/before-issue-24/\(name).txt")
            return
        }
        let fixture = try AdminFixture.shared()
        let arguments = try #require(AdminGoldenTests.cases.first { $0.0 == name }).1
        let (code, captured) = runAdmin(arguments, environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(Self.withoutAdditions(captured.printed) == (try String(contentsOf: before, encoding: .utf8)))
    }

    @Test("the stripping removes only the additions")
    func strippingRemovesOnlyAdditions() {
        let text = "A  B  CONFIDENCE\n1  2  0.93 high\n\nOwn need    8h\nChronotype  x\nConfidence  y\n\nrest\n"
        #expect(Self.withoutAdditions(text) == "A  B\n1  2\n\nrest\n")
    }
}
