import SleepCore
import SleepReports
import Testing
import WebPageFixtures

@testable import WebPages

/// The dashboard's cards of issue 24: need, body clock with today's pressure curve, and
/// the confidence marks, each with its plain sentence when the data are too thin.
@Suite("Dashboard: need, body clock and confidence cards")
struct PersonalCardsTests {
    static let need = SleepNeedEstimate(
        needSeconds: 28_914, lowSeconds: 26_709, highSeconds: 31_120, method: .recoveryRun, nightsUsed: 5,
        effectiveNights: 1.54, freeNights: 5, workNights: 10, habitualSeconds: 25_200, hiddenDebtSeconds: 3_714)
    static let prior = SleepNeedEstimate(
        needSeconds: 29_376, lowSeconds: 24_762, highSeconds: 33_990, method: .prior, nightsUsed: 0,
        effectiveNights: 0, freeNights: 2, workNights: 3, habitualSeconds: nil, hiddenDebtSeconds: nil)
    static let chronotype = Chronotype(
        msfscSeconds: 15_429, msfSeconds: 18_000, reason: nil, freeNights: 4, workNights: 10, clockShiftNights: 0)
    static let undefined = Chronotype(
        msfscSeconds: nil, msfSeconds: nil, reason: .tooFewNights, freeNights: 3, workNights: 10, clockShiftNights: 0)

    static func page(_ cards: PersonalCards) -> HTMLScan {
        let page = DashboardView.page(
            handle: "anna", horizon: .weekly, content: .summary(WebFixtures.rich(.weekly), windowNights: []),
            personal: cards)
        return HTMLScan(WebLayout.render(page, signedIn: "anna", csrfToken: "t"))
    }

    @Test("with data: the need and its interval, MSFsc with its counts and the pressure chart, a mark per night")
    func withData() throws {
        let nights = PersonalTestData.nights
        let pressure = try #require(
            SleepPressureCurve.curve(
                day: LocalDate(year: 2026, month: 3, day: 5), timeZoneIdentifier: "UTC", now: 20_517 * 86_400 + 43_200,
                nights: nights, chronotype: Self.chronotype, needSeconds: Self.need.needSeconds))
        let night = NightConfidence(
            coverage: 1, dataKind: .stages, agreement: 1, isTruncated: false, plausibility: 1, fragmentation: 1)
        let scan = Self.page(
            PersonalCards(
                need: Self.need, chronotype: Self.chronotype, confidence: ConfidenceSummary([1]),
                nightConfidence: [LocalDate(year: 2026, month: 3, day: 5): night], pressure: pressure, target: .fixed))
        let text = scan.text
        #expect(text.contains("Your sleep need"))
        #expect(text.contains("8h 2m a night"))
        #expect(text.contains("80 % interval: 7h 25m to 8h 39m."))
        #expect(text.contains("Found from a run of 5 free nights in a row"))
        #expect(text.contains("04:17 mid-sleep on free days"))
        #expect(text.contains("from 4 free and 10 work nights of the last 42 days"))
        #expect(scan.elements(withClass: "chart-pressure").count == 1)
        #expect(scan.elements(withClass: "mark-high").count == 2)
        #expect(text.contains("small sample (fewer than 7 nights)"))
        #expect(text.contains("Your debt is measured against the target you set, not this estimate."))
    }

    @Test("too few nights: the prior with why, no chronotype with why, no curve, no confidence yet")
    func thin() {
        let scan = Self.page(
            PersonalCards(
                need: Self.prior, chronotype: Self.undefined, confidence: ConfidenceSummary([]), nightConfidence: [:],
                pressure: nil, target: .estimatedNeed))
        let text = scan.text
        #expect(
            text.contains(
                "Too few nights to estimate your own need (2 free nights in the window: fewer than 4 and no run of 3 consecutive free nights): this is the average adult's need."
            ))
        #expect(
            text.contains(
                "No chronotype yet: 3 free and 10 work nights in the last 42 days: at least 4 free and 10 work nights are needed."
            ))
        #expect(text.contains("Today's sleep-pressure curve needs your chronotype."))
        #expect(text.contains("No night of this window has a confidence yet"))
        #expect(text.contains("Your debt is measured against this need (settings)."))
        #expect(scan.elements(withClass: "chart-pressure").isEmpty)
    }
}

/// Nights 23:00-07:00 UTC waking 2026-03-02 ... 2026-03-05 for the pressure curve.
enum PersonalTestData {
    static let nights: [Night] = (0..<4).map { index in
        let wakeDay = LocalDate(year: 2026, month: 3, day: 2 + index)
        let wake = Int64(wakeDay.daysSinceEpoch) * 86_400 + 7 * 3600
        let onset = wake - 8 * 3600
        return Night(
            wakeDay: wakeDay, timeZoneIdentifier: "UTC", bedtime: onset, onset: onset, wake: wake,
            asleepSeconds: 8 * 3600, timeInBedSeconds: 8 * 3600, awakeSeconds: 0, wakeUps: 0, latencySeconds: nil,
            stages: StageSeconds(core: 8 * 3600), efficiency: 1, hasStageData: true, source: "Watch", fragmentCount: 1,
            setAsideSources: [], asleepIntervals: [TimeSpan(start: onset, end: wake)], stageSegments: [])
    }
}
