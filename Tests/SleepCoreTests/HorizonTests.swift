import SleepCore
import Testing

/// Horizon windows and chart buckets (spec section 4).
@Suite struct HorizonTests {
    private func range(_ first: String, _ last: String) -> WakeDayRange {
        WakeDayRange(first: wakeDate(first), last: wakeDate(last))
    }

    @Test func rawValuesAreTheJSONNames() {
        #expect(
            Horizon.allCases.map(\.rawValue) == [
                "daily", "weekly", "monthly", "yearly", "5y", "10y",
            ])
    }

    @Test(arguments: [
        // daily: the as-of day and the day before
        (Horizon.daily, "2025-03-05", "2025-03-04", "2025-03-05"),
        // weekly: 7 days including the as-of day
        (.weekly, "2025-03-05", "2025-02-27", "2025-03-05"),
        // monthly: the day after 2025-02-05
        (.monthly, "2025-03-05", "2025-02-06", "2025-03-05"),
        // 2025-03-31 minus one month is 2025-02-31, clamped to 02-28; the day after is 03-01
        (.monthly, "2025-03-31", "2025-03-01", "2025-03-31"),
        // leap year: 2024-02-29 + 1
        (.monthly, "2024-03-31", "2024-03-01", "2024-03-31"),
        // January back into December of the previous year
        (.monthly, "2025-01-15", "2024-12-16", "2025-01-15"),
        // yearly from a leap day: 2023-02-29 clamps to 02-28, window starts 2023-03-01
        (.yearly, "2024-02-29", "2023-03-01", "2024-02-29"),
        (.yearly, "2025-03-31", "2024-04-01", "2025-03-31"),
        (.yearly, "2024-12-31", "2024-01-01", "2024-12-31"),
        // 5 years back from a leap day: 2023-02-28 + 1
        (.fiveYears, "2028-02-29", "2023-03-01", "2028-02-29"),
        (.tenYears, "2025-06-30", "2015-07-01", "2025-06-30"),
    ])
    func windows(horizon: Horizon, asOf: String, first: String, last: String) {
        #expect(horizon.window(asOf: wakeDate(asOf)) == range(first, last))
    }

    @Test func yearWindowLengthFollowsLeapYears() {
        #expect(Horizon.yearly.window(asOf: wakeDate("2024-12-31")).dayCount == 366)
        #expect(Horizon.yearly.window(asOf: wakeDate("2025-12-31")).dayCount == 365)
        #expect(Horizon.weekly.window(asOf: wakeDate("2025-03-01")).dayCount == 7)
    }

    @Test func weeklyHasOneBucketPerDay() {
        let buckets = Horizon.weekly.buckets(asOf: wakeDate("2025-03-02"))
        #expect(buckets.count == 7)
        #expect(buckets.first == range("2025-02-24", "2025-02-24"))
        #expect(buckets.last == range("2025-03-02", "2025-03-02"))
    }

    /// 2025-03-01 is a Saturday and 2025-03-31 a Monday: the window crosses six ISO weeks,
    /// the first (Sat-Sun) and last (Monday only) cut to the window.
    @Test func monthlyBucketsAreISOWeeksCutToTheWindow() {
        #expect(
            Horizon.monthly.buckets(asOf: wakeDate("2025-03-31")) == [
                range("2025-03-01", "2025-03-02"),
                range("2025-03-03", "2025-03-09"),
                range("2025-03-10", "2025-03-16"),
                range("2025-03-17", "2025-03-23"),
                range("2025-03-24", "2025-03-30"),
                range("2025-03-31", "2025-03-31"),
            ])
    }

    /// Window 2024-03-16 ... 2025-03-15: 13 month buckets, the first and last partial.
    @Test func yearlyBucketsAreCalendarMonths() {
        let buckets = Horizon.yearly.buckets(asOf: wakeDate("2025-03-15"))
        #expect(buckets.count == 13)
        #expect(buckets[0] == range("2024-03-16", "2024-03-31"))
        #expect(buckets[1] == range("2024-04-01", "2024-04-30"))
        #expect(buckets[11] == range("2025-02-01", "2025-02-28"))
        #expect(buckets[12] == range("2025-03-01", "2025-03-15"))
    }

    /// From the leap day 2024-02-29: 2023-03 ... 2024-02, February 2024 with 29 days.
    @Test func yearlyBucketsFromALeapDay() {
        let buckets = Horizon.yearly.buckets(asOf: wakeDate("2024-02-29"))
        #expect(buckets.count == 12)
        #expect(buckets[0] == range("2023-03-01", "2023-03-31"))
        #expect(buckets[11] == range("2024-02-01", "2024-02-29"))
    }

    @Test func multiYearBucketsAreCalendarYears() {
        #expect(
            Horizon.fiveYears.buckets(asOf: wakeDate("2028-02-29")) == [
                range("2023-03-01", "2023-12-31"), range("2024-01-01", "2024-12-31"),
                range("2025-01-01", "2025-12-31"), range("2026-01-01", "2026-12-31"),
                range("2027-01-01", "2027-12-31"), range("2028-01-01", "2028-02-29"),
            ])
        let ten = Horizon.tenYears.buckets(asOf: wakeDate("2025-06-30"))
        #expect(ten.count == 11)
        #expect(ten.first == range("2015-07-01", "2015-12-31"))
        #expect(ten.last == range("2025-01-01", "2025-06-30"))
    }

    /// Buckets tile the window exactly, for every horizon and a spread of as-of days.
    @Test(arguments: Horizon.allCases)
    func bucketsTileTheWindow(horizon: Horizon) {
        var asOf = wakeDate("2023-12-25")
        for _ in 0..<80 {
            let window = horizon.window(asOf: asOf)
            let buckets = horizon.buckets(asOf: asOf)
            #expect(buckets.first?.first == window.first)
            #expect(buckets.last?.last == window.last)
            for (a, b) in zip(buckets, buckets.dropFirst()) {
                #expect(a.last.adding(days: 1) == b.first)
            }
            #expect(buckets.allSatisfy { $0.first <= $0.last })
            asOf = asOf.adding(days: 11)
        }
    }
}
