import SleepCore
import Testing

@testable import HealthImport

/// Records dated outside the supported dates (1900-01-01 through 2199-12-31 UTC) are bad
/// records: each is reported with its line and the rest imports.
@Suite("Records outside the supported dates")
struct SupportedDatesRecordTests {
    static let range = "the supported dates 1900-01-01 through 2199-12-31"

    @Test(
        "start and end must lie within 1900 through 2199 (UTC): edges, just outside, years 0000, 0001 and 9999",
        arguments: [
            ("1900-01-01 00:00:00 +0000", "1900-01-01 07:00:00 +0000", nil),
            ("2199-12-31 16:00:00 +0000", "2199-12-31 23:59:59 +0000", nil),
            ("1900-01-01 00:30:00 +0100", "1900-01-01 07:00:00 +0100", "startDate 1900-01-01 00:30:00 +0100"),
            ("1899-12-31 23:00:00 +0000", "1900-01-01 07:00:00 +0000", "startDate 1899-12-31 23:00:00 +0000"),
            ("2199-12-31 23:00:00 +0000", "2200-01-01 00:00:00 +0000", "endDate 2200-01-01 00:00:00 +0000"),
            ("2199-12-31 23:00:00 -0100", "2200-01-01 07:00:00 -0100", "startDate 2199-12-31 23:00:00 -0100"),
            ("0001-01-01 00:00:00 +0000", "0001-01-01 07:00:00 +0000", "startDate 0001-01-01 00:00:00 +0000"),
            ("0000-01-01 00:00:00 +0000", "0000-01-01 07:00:00 +0000", "startDate 0000-01-01 00:00:00 +0000"),
            ("9999-12-31 00:00:00 +0000", "9999-12-31 07:00:00 +0000", "startDate 9999-12-31 00:00:00 +0000"),
            ("2024-01-01T23:00:00Z", "9999-01-02T06:00:00Z", "endDate 9999-01-02T06:00:00Z"),
        ] as [(String, String, String?)])
    func edges(start: String, end: String, rejected: String?) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "samples.csv",
            """
            sourceName,startDate,endDate,value
            Watch,\(start),\(end),AsleepCore
            Watch,2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,AsleepDeep

            """)
        let outcome = try readAll(.path(path))
        if let rejected {
            #expect(outcome.samples.count == 1)
            #expect(
                outcome.report.diagnostics == [
                    ImportDiagnostic(file: path, line: 2, reason: "\(rejected) is outside \(Self.range)")
                ])
        } else {
            #expect(outcome.samples.count == 2)
            #expect(outcome.report.diagnostics.isEmpty)
        }
    }
}
