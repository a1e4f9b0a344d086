import Foundation
import SleepCore
import Testing

/// The need estimate's validation on 200 seeded synthetic people (docs/sleep-rules.md,
/// "Validation"; issue 24, item 6).
@Suite("Own sleep need: validation on synthetic people")
struct SleepNeedValidationTests {
    /// One synthetic person's month: 30 nights waking 2026-03-02 (a Monday) ... 2026-03-31.
    /// Work nights (Monday-Friday) are restricted by 0.5-1.5 h and woken at 06:30 ± 10 min;
    /// weekend nights sleep 0.3-1.0 h over need and wake about 08:30; wake days 4-10 are a
    /// 7-night free run following `need + rebound exp(-(d - 1) / 2)` with a rebound of
    /// 0.5-2 h, waking about 08:30. Every night's asleep time has Gaussian noise, SD 30 min.
    static func month(need: Double, random: inout TestRandom) -> [Night] {
        let first = wakeDate("2026-03-02")
        let rebound = 0.5 + 1.5 * random.unit()
        var nights: [Night] = []
        for index in 0..<30 {
            let day = first.adding(days: index)
            var hours: Double
            var wakeMinutes: Double
            if (3..<10).contains(index) {
                hours = need + rebound * exp(-Double(index - 3) / 2)
                wakeMinutes = 8.5 * 60 + (random.unit() - 0.5) * 40
            } else if WorkDays.mondayToFriday.isWorkDay(day) {
                hours = need - (0.5 + random.unit())
                wakeMinutes = 6.5 * 60 + (random.unit() - 0.5) * 20
            } else {
                hours = need + 0.3 + 0.7 * random.unit()
                wakeMinutes = 8.5 * 60 + (random.unit() - 0.5) * 40
            }
            hours += 0.5 * random.gaussian()
            let asleep = sleepHours(hours)
            let wake = Int64(day.daysSinceEpoch) * 86_400 + Int64(wakeMinutes * 60)
            let onset = wake - asleep
            nights.append(
                Night(
                    wakeDay: day, timeZoneIdentifier: "UTC", bedtime: onset, onset: onset, wake: wake,
                    asleepSeconds: asleep, timeInBedSeconds: asleep, awakeSeconds: 0, wakeUps: 0, latencySeconds: nil,
                    stages: StageSeconds(core: asleep), efficiency: 1, hasStageData: true, source: "Watch",
                    fragmentCount: 1, setAsideSources: [], asleepIntervals: [TimeSpan(start: onset, end: wake)],
                    stageSegments: []))
        }
        return nights
    }

    @Test(
        "200 people: a month with one 7-night free run has a median error under 20 min and 80 % intervals covering at least 75 %; two weeks give wider intervals"
    )
    func syntheticPeople() {
        var random = TestRandom(seed: 20_261_206)
        let asOf = wakeDate("2026-03-31")
        let twoWeeksFrom = wakeDate("2026-03-18")
        var errors: [Double] = []
        var covered = 0
        var monthWidths: [Double] = []
        var fortnightWidths: [Double] = []
        var methods: [SleepNeedEstimate.Method: Int] = [:]
        for person in 0..<200 {
            let need = [7.0, 8.2, 9.0][person % 3]
            let truth = need * 3600
            let nights = Self.month(need: need, random: &random)
            let month = SleepNeedEstimate.estimate(nights: nights, asOf: asOf)
            methods[month.method, default: 0] += 1
            errors.append(abs(Double(month.needSeconds) - truth) / 60)
            if Double(month.lowSeconds) <= truth, truth <= Double(month.highSeconds) { covered += 1 }
            monthWidths.append(Double(month.highSeconds - month.lowSeconds) / 60)
            let fortnight = SleepNeedEstimate.estimate(nights: nights.filter { $0.wakeDay >= twoWeeksFrom }, asOf: asOf)
            fortnightWidths.append(Double(fortnight.highSeconds - fortnight.lowSeconds) / 60)
        }
        let medianError = NightStatistics.median(errors)
        let coverage = Double(covered) / 200
        let monthWidth = NightStatistics.median(monthWidths)
        let fortnightWidth = NightStatistics.median(fortnightWidths)
        print(
            "need validation: median error \(medianError) min, 80 % interval coverage \(coverage), "
                + "median width month \(monthWidth) min, two weeks \(fortnightWidth) min, methods \(methods)")
        #expect(methods[.recoveryRun] == 200)
        #expect(medianError < 20)
        #expect(coverage >= 0.75)
        #expect(fortnightWidth > monthWidth)
    }
}

/// Small statistics for the validation.
enum NightStatistics {
    /// The median (mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
