import SleepCore
import Testing

/// The defaults of every metric constant are the spec's (sections 4-7).
@Suite struct SummaryRulesTests {
    @Test func metricDefaults() {
        let rules = MetricRules.standard
        #expect(rules.concerningDebtSeconds == 2 * 3600)
        #expect(rules.criticalDebtSeconds == 5 * 3600)
        #expect(rules.rollingWindowNights == 14)
        #expect(rules.rollingDecay == 0.872)
        #expect(rules.rollingMinimumTrackedNights == 5)
        #expect(rules.recoveryGoalSeconds == 2 * 3600)
        #expect(rules.recoveryPlanExtraSeconds == [1800, 3600, 5400])  // +30, +60, +90 min
        #expect(rules.recoveryNightCap == 30)
        #expect(rules.trendMinimumNights == 3)
        #expect(rules.trendStableHours == 0.1)
        #expect(rules.patternMinimumTrackedNights == 5)
        #expect(rules.socialJetLagHours == 1.5)
        #expect(rules.lateBedtimeFromHour == 0)
        #expect(rules.lateBedtimeUntilHour == 5)
        #expect(rules.lateBedtimeNightDivisor == 3)
        #expect(rules.lowDeepFraction == 0.10)
        #expect(rules.lowREMFraction == 0.15)
    }

    @Test func scoreDefaults() {
        let score = ScoreRules()
        let weights: [Double] = [
            score.durationWeight, score.efficiencyWeight, score.consistencyWeight,
            score.stagesWeight,
        ]
        #expect(weights == [0.35, 0.25, 0.20, 0.20])
        let references: [Double] = [
            score.durationLowerHours, score.durationIdealHours, score.durationUpperHours,
        ]
        #expect(references == [7, 8, 9])
        #expect(score.efficiencyThreshold == 0.85)
        #expect(score.consistencyScaleMinutes == 120)
        #expect(score.consistencyDefault == 70)
        #expect(score.stagesDeepIdeal == 0.20)
        #expect(score.stagesREMIdeal == 0.25)
        #expect(score.stagesDefault == 60)
        let bands: [Int] = [score.excellentFrom, score.goodFrom, score.fairFrom, score.poorFrom]
        #expect(bands == [90, 75, 60, 40])
    }

    /// r = 0.872 gives last night a weight of 0.150 when all 14 nights are tracked:
    /// (1 - r) / (1 - r^14).
    @Test func decayGivesFifteenPercent() {
        let r = MetricRules.standard.rollingDecay
        var sum = 0.0
        var power = 1.0
        for _ in 0..<14 {
            sum += power
            power *= r
        }
        #expect(abs(1 / sum - 0.15) < 0.0005)
    }
}

/// Rule validation.
@Suite struct SummaryRulesValidationTests {
    @Test func defaultsHaveNoProblems() {
        #expect(MetricRules.standard.problems.isEmpty)
    }

    @Test func nonsenseIsReported() {
        let rules = MetricRules(
            concerningDebtSeconds: 5 * 3600, criticalDebtSeconds: 2 * 3600, rollingDecay: 1.5,
            rollingMinimumTrackedNights: 20, lateBedtimeNightDivisor: 0)
        #expect(rules.problems.count == 4)
    }
}
