import SleepCore
import SleepReports
import Testing

/// How reports write durations, fractions, times and horizon buckets. Instants worked out by
/// hand: 2025-03-17 is day 20164 since 1970 (55 years with 14 leap days to 2025-01-01, plus
/// 75 days), so 2025-03-17T00:00:00Z is 1_742_169_600; 2025-07-01 is day 20270
/// (1_751_328_000). Berlin is UTC+1 until 2025-03-30 and UTC+2 in July; New York is UTC-4
/// from 2025-03-09.
@Suite("ReportFormat")
struct ReportFormatTests {
    static let march17 = Int64(1_742_169_600)
    static let july1 = Int64(1_751_328_000)

    @Test("hours as people read them, `-` when absent")
    func hours() {
        #expect(ReportFormat.hours(Int64(26_700)) == "7h 25m")
        #expect(ReportFormat.hours(Int64(28_800)) == "8h")
        #expect(ReportFormat.hours(Int64?.none) == "-")
        #expect(ReportFormat.hours(Int64?.some(1_740)) == "29m")
    }

    @Test(arguments: [(0.914, "91%"), (0.916, "92%"), (1.0, "100%"), (0.0, "0%"), (0.25, "25%")])
    func percent(fraction: Double, text: String) {
        #expect(ReportFormat.percent(fraction) == text)
    }

    @Test(arguments: [(1.2, "+1.2h"), (-0.4, "-0.4h"), (0.0, "+0.0h"), (2.0, "+2.0h")])
    func signedHours(hours: Double, text: String) {
        #expect(ReportFormat.signedHours(hours) == text)
    }

    @Test(arguments: [(0, "0 nights"), (1, "1 night"), (2, "2 nights"), (7, "7 nights")])
    func nights(count: Int, text: String) {
        #expect(ReportFormat.nights(count) == text)
    }

    @Test(
        "an instant at the offset an export printed (UTC without one, or with one not in whole minutes)",
        arguments: [
            (1_704_072_473, Int32?(7200), "2024-01-01T03:27:53+02:00"),
            (1_704_072_473, Int32?(-12_600), "2023-12-31T21:57:53-03:30"),
            (1_704_072_473, Int32?(0), "2024-01-01T01:27:53Z"),
            (1_704_072_473, nil, "2024-01-01T01:27:53Z"),
            (1_704_072_473, Int32?(7201), "2024-01-01T01:27:53Z"),
            (-1, Int32?(3600), "1970-01-01T00:59:59+01:00"),
        ] as [(Int64, Int32?, String)])
    func isoOffset(instant: Int64, offset: Int32?, text: String) {
        #expect(ReportFormat.isoOffset(instant, offsetSeconds: offset) == text)
    }

    @Test(arguments: [("2025-03-16T23:25:00", "23:25"), ("2026-11-30T07:48:58", "07:48"), ("23:25", "23:25")])
    func clock(local: String, text: String) {
        #expect(ReportFormat.clock(local) == text)
    }

    @Test(
        "an instant as wall-clock time in a zone, UTC when the zone is unknown",
        arguments: [
            (march17, "Europe/Berlin", "2025-03-17 01:00"), (july1, "Europe/Berlin", "2025-07-01 02:00"),
            (march17, "America/New_York", "2025-03-16 20:00"), (march17, "No/Such_Zone", "2025-03-17 00:00"),
            (march17 + 3_723, "UTC", "2025-03-17 01:02"), (-1, "UTC", "1969-12-31 23:59"),
        ])
    func localTime(instant: Int64, zone: String, text: String) {
        #expect(ReportFormat.localTime(instant, zone: zone) == text)
        #expect(ReportFormat.localClock(instant, zone: zone) == String(text.suffix(5)))
    }

    @Test("bookkeeping times in UTC; ISO 8601 UTC; absent as `-` and empty")
    func utc() {
        #expect(ReportFormat.utcTime(Self.march17 + 3_723) == "2025-03-17 01:02 UTC")
        #expect(ReportFormat.utcTime(nil) == "-")
        #expect(ReportFormat.isoUTC(Self.march17 + 3_723) == "2025-03-17T01:02:03Z")
        #expect(ReportFormat.isoUTC(0) == "1970-01-01T00:00:00Z")
        #expect(ReportFormat.isoUTC(-1) == "1969-12-31T23:59:59Z")
        #expect(ReportFormat.isoUTC(Self.july1 + 86_399) == "2025-07-01T23:59:59Z")
        #expect(ReportFormat.isoUTC(nil) == "")
    }

    /// What one bucket is, by docs/summary-json.md: the daily horizon's one bucket is a
    /// night; weekly has a bucket per day, monthly per ISO week, yearly per month, 5y and 10y
    /// per year.
    @Test(arguments: [
        (Horizon.daily, "night"), (.weekly, "day"), (.monthly, "week"), (.yearly, "month"), (.fiveYears, "year"),
        (.tenYears, "year"),
    ])
    func bucketName(horizon: Horizon, name: String) {
        #expect(ReportFormat.bucketName(horizon) == name)
    }

    @Test(
        "a bucket's label: the day, a range, or the month or year when the bucket is all of it",
        arguments: [
            (Horizon.weekly, "2025-03-17", "2025-03-17", "2025-03-17"),
            (.monthly, "2025-03-10", "2025-03-16", "2025-03-10..2025-03-16"),
            (.yearly, "2025-02-01", "2025-02-28", "2025-02"), (.yearly, "2024-02-01", "2024-02-29", "2024-02"),
            (.yearly, "2024-02-01", "2024-02-28", "2024-02-01..2024-02-28"),
            (.yearly, "2025-03-01", "2025-03-17", "2025-03-01..2025-03-17"),
            (.fiveYears, "2024-01-01", "2024-12-31", "2024"),
            (.tenYears, "2015-03-18", "2015-12-31", "2015-03-18..2015-12-31"),
            (.fiveYears, "2025-01-01", "2025-03-17", "2025-01-01..2025-03-17"),
        ])
    func bucketLabel(horizon: Horizon, first: String, last: String, label: String) throws {
        let range = WakeDayRange(first: try #require(LocalDate(first)), last: try #require(LocalDate(last)))
        #expect(ReportFormat.bucketLabel(range, horizon: horizon) == label)
    }
}
