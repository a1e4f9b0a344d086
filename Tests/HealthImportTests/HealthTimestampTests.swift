import Testing

@testable import HealthImport

struct HealthTimestampTests {
    // Expected values worked out by hand: 2023-01-02 is day 19359 since 1970
    // (53 years incl. 13 leap days = 19358 days to 2023-01-01, +1).
    static func utc(_ day: Int64, _ hour: Int64, _ minute: Int64, _ second: Int64) -> Int64 {
        ((day * 24 + hour) * 60 + minute) * 60 + second
    }

    static let validCases: [(String, Int64, Int32)] = [
        ("2023-01-02 23:04:05 +0100", utc(19_359, 22, 4, 5), 3600),
        ("2023-01-02 23:04:05 -0700", utc(19_360, 6, 4, 5), -25_200),
        ("2023-01-02 23:04:05 +0000", utc(19_359, 23, 4, 5), 0),
        ("2023-01-02T23:04:05Z", utc(19_359, 23, 4, 5), 0),
        ("2023-01-02T23:04:05+01:00", utc(19_359, 22, 4, 5), 3600),
        ("2023-01-02T23:04:05+0530", utc(19_359, 17, 34, 5), 19_800),
        ("2023-01-02T23:04:05.499Z", utc(19_359, 23, 4, 5), 0),
        ("2023-01-02T23:04:05.5Z", utc(19_359, 23, 4, 6), 0),
        ("2023-01-02T23:59:59.9+00:00", utc(19_360, 0, 0, 0), 0),
        ("1970-01-01T00:00:00Z", 0, 0),
        ("2024-02-29 12:00:00 +0000", utc(19_782, 12, 0, 0), 0),
        ("1969-12-31 23:59:59 +0000", -1, 0),
    ]

    @Test(arguments: validCases)
    func parsesAppleAndISOFormats(text: String, seconds: Int64, offset: Int32) {
        let parsed = HealthTimestamp(parsing: text)
        #expect(parsed == HealthTimestamp(secondsSince1970: seconds, utcOffsetSeconds: offset))
    }

    @Test(arguments: [
        "", "2023-01-02", "2023-01-02 23:04:05", "2023-01-02T23:04:05", "2023-02-29 00:00:00 +0000",
        "2023-13-01 00:00:00 +0000", "2023-01-32 00:00:00 +0000", "2023-01-02 24:00:00 +0000",
        "2023-01-02 23:60:00 +0000", "2023-01-02 23:04:05 +0100 ", "23-01-02 23:04:05 +0100",
        "2023/01/02 23:04:05 +0100", "2023-01-02T23:04:05.Z", "2023-01-02 23:04:05 +1900", "yesterday",
    ])
    func rejectsMalformedDates(text: String) {
        #expect(HealthTimestamp(parsing: text) == nil)
    }
}
