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

    /// The 12-hour clock (Health Auto Export on a phone set to it), each beside the same
    /// time on the 24-hour clock: 12 am is midnight, 12 pm noon; the marker in any letter
    /// case, with or without dots and a (narrow no-break) space before it.
    @Test(arguments: [
        ("2023-01-02 11:04:05\u{202F}pm +0100", "2023-01-02 23:04:05 +0100"),
        ("2023-01-02 9:04:05\u{202F}am +0100", "2023-01-02 09:04:05 +0100"),
        ("2023-01-02 12:04:05\u{202F}am +0000", "2023-01-02 00:04:05 +0000"),
        ("2023-01-02 12:04:05\u{202F}pm +0000", "2023-01-02 12:04:05 +0000"),
        ("2023-01-02 12:59:59 AM +0000", "2023-01-02 00:59:59 +0000"),
        ("2023-01-02 1:00:00 PM +0000", "2023-01-02 13:00:00 +0000"),
        ("2023-01-02 01:00:00\u{00A0}p.m. +0000", "2023-01-02 13:00:00 +0000"),
        ("2023-01-02 1:00:00pm +0000", "2023-01-02 13:00:00 +0000"),
        ("2023-01-02T1:00:00.6 pM Z", "2023-01-02T13:00:01Z"),
    ])
    func parsesTwelveHourClock(text: String, twentyFourHour: String) throws {
        let parsed = try #require(HealthTimestamp(parsing: text))
        #expect(parsed == HealthTimestamp(parsing: twentyFourHour))
    }

    @Test(arguments: [
        "", "2023-01-02", "2023-01-02 23:04:05", "2023-01-02T23:04:05", "2023-02-29 00:00:00 +0000",
        "2023-13-01 00:00:00 +0000", "2023-01-32 00:00:00 +0000", "2023-01-02 24:00:00 +0000",
        "2023-01-02 23:60:00 +0000", "2023-01-02 23:04:05 +0100 ", "23-01-02 23:04:05 +0100",
        "2023/01/02 23:04:05 +0100", "2023-01-02T23:04:05.Z", "2023-01-02 23:04:05 +1900", "yesterday",
        // 12-hour forms: hours 1 to 12 only, a whole marker, an offset still required.
        "2023-01-02 0:04:05 am +0000", "2023-01-02 13:04:05 pm +0000", "2023-01-02 9:04:05 +0000",
        "2023-01-02 9:04:05 am", "2023-01-02 9:04:05 a +0000", "2023-01-02 9:04:05 a.m +0000",
        "2023-01-02 9:04:05  am +0000", "2023-01-02 9:04:05 am+0000x", "2023-01-02 123:04:05 am +0000",
    ])
    func rejectsMalformedDates(text: String) {
        #expect(HealthTimestamp(parsing: text) == nil)
    }
}
