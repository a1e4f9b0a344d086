import SleepCore
import Testing

/// The one look-back rule: which nights summaries read and which samples a rebuild reads.
@Suite("Look-back rule")
struct LookBackTests {
    static let asOf = LocalDate(year: 2025, month: 3, day: 17)

    @Test(
        "the nights a summary reads: its window, the rolling 14 days, the quick-stats week and the last night",
        arguments: [
            ([Horizon.daily], LocalDate(year: 2025, month: 3, day: 4)),
            ([.weekly], LocalDate(year: 2025, month: 3, day: 4)),
            ([.monthly], LocalDate(year: 2025, month: 2, day: 18)),
            ([.yearly], LocalDate(year: 2024, month: 3, day: 18)),
            ([.daily, .tenYears], LocalDate(year: 2015, month: 3, day: 18)),
            (Horizon.allCases, LocalDate(year: 2015, month: 3, day: 18)),
        ])
    func nightsRead(horizons: [Horizon], first: LocalDate) {
        let nights = LookBack.nights(for: horizons, asOf: Self.asOf)
        #expect(nights.wakeDays == WakeDayRange(first: first, last: Self.asOf))
        #expect(nights.segmentsFrom == LocalDate(year: 2025, month: 3, day: 16))
    }

    @Test("a longer rolling window reaches further back than the weekly window")
    func rollingWindowFollowsTheRules() {
        let rules = MetricRules(rollingWindowNights: 28)
        #expect(
            LookBack.nights(for: [.weekly], asOf: Self.asOf, rules: rules).wakeDays.first
                == Self.asOf.adding(days: -27))
    }

    @Test("every night a summary uses lies in the range the rule names")
    func summaryUsesOnlyTheRange() {
        let rules = MetricRules.standard
        for horizon in Horizon.allCases {
            let range = LookBack.nights(for: [horizon], asOf: Self.asOf, rules: rules).wakeDays
            #expect(range.contains(horizon.window(asOf: Self.asOf).first))
            #expect(range.contains(Self.asOf.adding(days: -(rules.rollingWindowNights - 1))))
            #expect(range.contains(Horizon.weekly.window(asOf: Self.asOf).first))
        }
    }

    @Test("changed samples rebuild from two days before their earliest wake day, reading two more days")
    func rebuildMargins() {
        let earliest = LocalDate(year: 2024, month: 3, day: 10)
        let changed = LookBack.firstChangedWakeDay(earliestSampleWakeDay: earliest)
        #expect(changed == LocalDate(year: 2024, month: 3, day: 9))
        let rebuilt = LookBack.firstRebuiltWakeDay(changedFrom: changed)
        #expect(rebuilt == LocalDate(year: 2024, month: 3, day: 8))
        // 2024-03-08 00:00 UTC minus 48 hours.
        #expect(LookBack.sampleSpanStart(rebuildingFrom: rebuilt) == Int64(rebuilt.daysSinceEpoch - 2) * 86_400)
    }
}
