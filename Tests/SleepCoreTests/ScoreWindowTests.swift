import SleepCore
import Testing

/// Scores of whole windows of nights (spec sections 5 and 8).
@Suite struct ScoreWindowTests {
    @Test func noTrackedNightScoresZeroWithoutComponents() {
        let score = SleepScore(nights: [])
        #expect(score.overall == 0)
        #expect(score.grade == .veryPoor)
        #expect(score.components == nil)
        #expect(score.trackedNights == 0)
    }

    /// Spec section 8: 6.5 h asleepUnspecified then 30 min core has no stage data
    /// (0.5 h staged < half of 7 h), so the stages component of that window is 60.
    @Test func unspecifiedNightWithLittleCoreHasDefaultStages() throws {
        let night = MetricTestNight.make(
            wake: "2025-03-04", asleep: sleepHours(7), core: sleepMinutes(30))
        #expect(night.hasStageData == false)
        let components = try #require(SleepScore(nights: [night]).components)
        #expect(components.stages == 60)
        #expect(components.consistency == 70)  // one night
    }

    /// Two nights by hand: 7.5 h asleep in 8 h in bed (bed 23:00) and 8.5 h in 9 h (bed 00:00).
    /// Duration: mean 8 h -> 100. Efficiency: (0.9375 + 0.94444) / 2 = 0.94097 -> 104 -> 100.
    /// Consistency: 1380 and 1440 minutes, sd 30 -> 75. Stages: none staged -> 60.
    /// Overall: 35 + 25 + 15 + 12 = 87, Good.
    @Test func twoNightsByHand() throws {
        let nights = [
            MetricTestNight.make(
                wake: "2025-03-04", bedtime: "23:00", asleep: sleepHours(7.5),
                latency: sleepMinutes(30)),
            MetricTestNight.make(
                wake: "2025-03-05", bedtime: "00:00", asleep: sleepHours(8.5),
                latency: sleepMinutes(30)),
        ]
        let score = SleepScore(nights: nights)
        #expect(
            score.components
                == ScoreComponents(duration: 100, efficiency: 100, consistency: 75, stages: 60))
        #expect(score.overall == 87)
        #expect(score.grade == .good)
    }

    /// Stage data: a night with 20% deep and 25% REM scores 100 on stages; a second with 10%
    /// deep and 25% REM scores 75; component trunc(87.5) = 87.
    @Test func stagesAverageOverStagedNightsOnly() throws {
        let nights = [
            MetricTestNight.make(
                wake: "2025-03-04", asleep: sleepHours(8), deep: sleepHours(1.6),
                rem: sleepHours(2), core: sleepHours(4.4)),
            MetricTestNight.make(
                wake: "2025-03-05", asleep: sleepHours(8), deep: sleepHours(0.8),
                rem: sleepHours(2), core: sleepHours(5.2)),
            // unstaged: ignored by the stages component
            MetricTestNight.make(wake: "2025-03-06", asleep: sleepHours(8)),
        ]
        let components = try #require(SleepScore(nights: nights).components)
        #expect(components.stages == 87)
    }

    /// Bedtimes are read in the night's own zone: 23:30 in GMT+02:00 (21:30 UTC) and 00:30
    /// in GMT-01:00 (01:30 UTC) are 60 local minutes apart: sd 30 -> 75.
    @Test func bedtimesUseEachNightsZone() throws {
        let nights = [
            MetricTestNight.make(
                wake: "2025-03-04", bedtime: "23:30", asleep: sleepHours(8), zone: "GMT+02:00",
                utcOffset: 7200),
            MetricTestNight.make(
                wake: "2025-03-05", bedtime: "00:30", asleep: sleepHours(8), zone: "GMT-01:00",
                utcOffset: -3600),
        ]
        #expect(try #require(SleepScore(nights: nights).components).consistency == 75)
    }
}
