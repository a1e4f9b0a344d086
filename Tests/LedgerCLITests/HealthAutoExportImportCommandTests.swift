import ExportFixtures
import Foundation
import SleepCore
import Testing

@testable import LedgerCLI

/// A saved Health Auto Export payload imports with `sleepledger import` like any file.
@Suite("sleepledger import: Health Auto Export")
struct HealthAutoExportImportCommandTests {
    @Test(
        "a payload imports as kind hae; the text summary lists the ignored metrics and counts diagnostics, not rejections"
    )
    func importsAPayload() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let samples = HealthAutoExportServerTests.nights(
            from: LocalDate(year: 2024, month: 2, day: 1), count: 5, seed: 7)
        let entries = HealthAutoExportWriter.bytes(samples: samples, layout: .init(fillerBytes: 500))
        // Five empty metrics, heart rate and one bad sleep entry: seven diagnostics, one rejection.
        let others = (1...5).map { "{\"name\":\"metric_\($0)\",\"units\":\"count\",\"data\":[]}," }.joined()
        var text = String(decoding: entries, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"metrics\":[", with: "\"metrics\":[\(others)")
        text = text.replacingOccurrences(of: "\"data\":[{\"source\"", with: "\"data\":[{\"value\":\"Nap\"},{\"source\"")
        let path = try fixture.write("payload.json", text)

        let (code, captured) = runTool(["import", "--user", "anna", path], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        let distinct = Set(samples.map(SampleKey.init)).count
        #expect(try fixture.count("SELECT count(*) FROM sleep_samples") == distinct)
        #expect(try fixture.count("SELECT count(*) FROM imports WHERE kind = 'hae' AND status = 'succeeded'") == 1)
        #expect(captured.printed.hasPrefix("\(path): hae, "))
        #expect(captured.printed.contains("  rejected            1\n"))
        #expect(
            captured.printed.contains(
                ":1: data.metrics[0] \"metric_1\": 0 entries ignored (only sleep_analysis is imported)\n"))
        #expect(captured.printed.contains("  and 2 more diagnostics\n"), "\(captured.printed)")
    }
}
