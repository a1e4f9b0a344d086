import Foundation
import SleepCore
import Testing

/// The need estimate's worked examples (docs/sleep-rules.md, "Own sleep need"; expected
/// values computed independently of SleepCore) and its boundary and property rules.
@Suite("Own sleep need")
struct SleepNeedTests {
    /// No work days: every night is free.
    static let everyDayFree = WorkDays(mask: 0)

    @Test("W1: a 5-night recovery run of 9.5, 8.9, 8.5, 8.4, 8.2 h")
    func recoveryRun() {
        let nights = PersonalTestNights.consecutive(from: "2026-03-02", asleepHours: [9.5, 8.9, 8.5, 8.4, 8.2])
        let estimate = SleepNeedEstimate.estimate(
            nights: nights, asOf: wakeDate("2026-03-06"), workDays: Self.everyDayFree)
        #expect(estimate.method == .recoveryRun)
        #expect(estimate.needSeconds == 28_914)
        #expect(estimate.lowSeconds == 26_709)
        #expect(estimate.highSeconds == 31_120)
        #expect(estimate.nightsUsed == 5)
        #expect(abs(estimate.effectiveNights - 1.5365) < 0.0001)
        #expect(estimate.tooFewNightsReason == nil)
    }

    @Test("W2: four free weekend nights and no run: the trimmed mean with the catch-up allowance")
    func freeNights() {
        // Saturdays and Sundays: 2026-03-07/08 and 2026-03-14/15.
        let nights = [
            PersonalTestNights.night("2026-03-07", "23:00", hours: 8.5),
            PersonalTestNights.night("2026-03-08", "23:00", hours: 9.0),
            PersonalTestNights.night("2026-03-14", "23:00", hours: 7.5),
            PersonalTestNights.night("2026-03-15", "23:00", hours: 9.25),
        ]
        let estimate = SleepNeedEstimate.estimate(nights: nights, asOf: wakeDate("2026-03-15"))
        #expect(estimate.method == .freeNights)
        #expect(estimate.needSeconds == 30_636)
        #expect(estimate.lowSeconds == 27_000)
        #expect(estimate.highSeconds == 34_272)
        #expect(estimate.nightsUsed == 4)
        #expect(estimate.freeNights == 4)
    }

    @Test("W3: two free nights: the prior, too few nights")
    func prior() {
        let nights = PersonalTestNights.consecutive(from: "2026-03-07", asleepHours: [9, 9])
        let estimate = SleepNeedEstimate.estimate(nights: nights, asOf: wakeDate("2026-03-08"))
        #expect(estimate.method == .prior)
        #expect(estimate.hasTooFewNights)
        #expect(estimate.needSeconds == 29_376)
        #expect(estimate.lowSeconds == 24_762)
        #expect(estimate.highSeconds == 33_990)
        #expect(estimate.nightsUsed == 0)
        #expect(
            estimate.tooFewNightsReason
                == "2 free nights in the window: fewer than 4 and no run of 3 consecutive free nights")
    }

    @Test("no nights at all: the prior")
    func noNights() {
        let estimate = SleepNeedEstimate.estimate(nights: [], asOf: wakeDate("2026-03-08"))
        #expect(estimate.method == .prior && estimate.freeNights == 0 && estimate.workNights == 0)
        #expect(estimate.habitualSeconds == nil && estimate.hiddenDebtSeconds == nil)
    }

    @Test("a vacation week: work days waking 2 h later than the work-day median are free and make a run")
    func vacationRun() {
        // Two ordinary weeks waking 06:30 on work days, then a week off waking 08:30.
        var nights: [Night] = []
        for day in PersonalTestNights.days(from: "2026-03-02", count: 14) {
            let free = !WorkDays.mondayToFriday.isWorkDay(day)
            nights.append(PersonalTestNights.night(day.description, free ? "00:00" : "23:30", hours: free ? 8.5 : 7))
        }
        for (index, day) in PersonalTestNights.days(from: "2026-03-16", count: 5).enumerated() {
            nights.append(PersonalTestNights.night(day.description, "23:30", hours: 9 - 0.2 * Double(index)))
        }
        let estimate = SleepNeedEstimate.estimate(nights: nights, asOf: wakeDate("2026-03-20"))
        #expect(estimate.method == .recoveryRun)
        // The vacation's 5 work days join the weekend before them: a run of 7.
        #expect(estimate.nightsUsed == 7)
        #expect(estimate.workNights == 10)
        #expect(estimate.habitualSeconds == Int64(7 * 3600))
        #expect(estimate.hiddenDebtSeconds == estimate.needSeconds - 7 * 3600)
    }

    @Test("a run of 2 free nights is no run; the window is 90 days and ends on the as-of day")
    func windowBounds() {
        let nights = PersonalTestNights.consecutive(from: "2026-01-01", asleepHours: [9, 9, 9, 9])
        let inside = SleepNeedEstimate.estimate(
            nights: nights, asOf: wakeDate("2026-03-31"), workDays: Self.everyDayFree)
        #expect(inside.method == .recoveryRun)  // 2026-01-01 is day 90 back
        let outside = SleepNeedEstimate.estimate(
            nights: nights, asOf: wakeDate("2026-04-01"), workDays: Self.everyDayFree)
        #expect(outside.method == .recoveryRun && outside.nightsUsed == 3)
        let before = SleepNeedEstimate.estimate(
            nights: nights, asOf: wakeDate("2025-12-31"), workDays: Self.everyDayFree)
        #expect(before.method == .prior)
        let two = SleepNeedEstimate.estimate(
            nights: Array(nights.prefix(2)), asOf: wakeDate("2026-01-02"), workDays: Self.everyDayFree)
        #expect(two.method == .prior)
    }

    @Test("estimates are clamped to 5-11 h")
    func clamped() {
        let long = PersonalTestNights.consecutive(from: "2026-03-02", asleepHours: [14, 14, 14, 14, 14])
        let estimate = SleepNeedEstimate.estimate(
            nights: long, asOf: wakeDate("2026-03-06"), workDays: Self.everyDayFree)
        #expect(estimate.needSeconds == 11 * 3600 && estimate.highSeconds == 11 * 3600)
        #expect(estimate.lowSeconds <= estimate.needSeconds)
    }

    @Test("each night's need comes from the nights before it only")
    func noLookAhead() {
        let nights = PersonalTestNights.consecutive(
            from: "2026-03-02", asleepHours: [9.5, 8.9, 8.5, 8.4, 8.2, 12], bedtime: "22:00")
        let before = SleepNeedEstimate.estimatesBefore(nights: nights, workDays: Self.everyDayFree)
        #expect(before.map(\.wakeDay) == nights.map(\.wakeDay))
        #expect(before[0].estimate.method == .prior)
        #expect(before[3].estimate.method == .recoveryRun && before[3].estimate.nightsUsed == 3)
        // The sixth night's estimate is W1's: it never sees its own 12 h.
        #expect(before[5].estimate.needSeconds == 28_914)
    }

    @Test(
        "properties: the interval holds the estimate, all within 5-11 h, and the order of nights does not matter",
        arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func properties(seed: UInt64) {
        var generator = TestRandom(seed: seed)
        let hours = (0..<40).map { _ in 5 + generator.unit() * 6 }
        let nights = PersonalTestNights.consecutive(from: "2026-01-05", asleepHours: hours)
        let asOf = wakeDate("2026-02-13")
        let estimate = SleepNeedEstimate.estimate(nights: nights, asOf: asOf)
        #expect(estimate.lowSeconds <= estimate.needSeconds && estimate.needSeconds <= estimate.highSeconds)
        #expect(estimate.lowSeconds >= 5 * 3600 && estimate.highSeconds <= 11 * 3600)
        #expect(SleepNeedEstimate.estimate(nights: nights.reversed(), asOf: asOf) == estimate)
        #expect(estimate.freeNights + estimate.workNights == 40)
    }
}

/// SplitMix64 for property tests.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box-Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * unit())
    }
}
