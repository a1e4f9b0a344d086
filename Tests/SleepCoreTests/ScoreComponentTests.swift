import SleepCore
import Testing

/// Piecewise component functions of spec section 5, at and around every boundary.
/// Expected values are worked by hand from the spec formulas.
@Suite struct ScoreComponentTests {
    @Test(arguments: [
        // plateau 7...9: trunc(100 - |a - 8| x 10)
        (8.0, 100), (8.5, 95), (7.5, 95),
        (7.0, 90),  // lower edge, inside the plateau: 100 - 10
        (9.0, 90),  // upper edge: 100 - 10
        (7.01, 90),  // 100 - 0.99 x 10 = 90.1
        (8.99, 90),  // 100 - 0.99 x 10 = 90.1
        (6.99, 69),  // below: 70 - 0.01 x 20 = 69.8
        (9.01, 79),  // above: 80 - 0.01 x 15 = 79.85
        (6.0, 50),  // 70 - 1 x 20
        (5.1, 32),  // 70 - 1.9 x 20 = 32 exactly; unrounded float gives 31.999999999999993
        (3.5, 0),  // 70 - 3.5 x 20 = 0
        (3.0, 0),  // 70 - 80 = -10, max 0
        (10.0, 65),  // 80 - 1 x 15
        (11.0, 50),  // 80 - 2 x 15
        (12.0, 40),  // 80 - 45 = 35, floor 40
        (6.9999999999, 90),  // float noise around 7 rounds to 7: plateau
    ])
    func duration(hours: Double, expected: Int) {
        #expect(ScoreComponents.duration(averageAsleepHours: hours) == expected)
    }

    @Test(arguments: [
        (0.85, 95),  // edge belongs to the generous branch: 85 + 10
        (0.849, 91),  // low branch: 0.849 x 120 - 10 = 91.88
        (0.84999999999, 95),  // noise rounds to 0.85
        (0.89, 99),  // 89 + 10 (0.89 x 100 = 89.00000000000001)
        (0.90, 100),  // 90 + 10
        (0.95, 100),  // 105, min 100
        (1.0, 100),
        (0.7, 74),  // 84 - 10
        (0.5, 50),  // 60 - 10
        (0.05, 0),  // 6 - 10, max 0
        (0.0, 0),
    ])
    func efficiency(value: Double, expected: Int) {
        #expect(ScoreComponents.efficiency(averageEfficiency: value) == expected)
    }

    @Test(arguments: [
        (0.0, 100), (12.0, 90), (60.0, 50), (119.0, 0),  // 100 - 99.1666 = 0.83 -> 0
        (118.8, 1),  // 100 - 99 = 1
        (120.0, 0), (150.0, 0),  // negative clamps to 0
    ])
    func consistencyFromDeviation(minutes: Double, expected: Int) {
        #expect(ScoreComponents.consistency(bedtimeStandardDeviationMinutes: minutes) == expected)
    }

    @Test(arguments: [
        // 23:30 and 00:30 -> 1410 and 1470, mean 1440, population sd 30 -> 100 - 25 = 75
        ([1410.0, 30.0], 75),
        // 22:00 and 02:00 -> 1320 and 1560, sd 120 -> 0
        ([1320.0, 120.0], 0),
        // 23:00, 23:00, 00:30 -> 1380, 1380, 1470; mean 1410; var (900+900+3600)/3 = 1800;
        // sd 42.426; 100 - 35.355 = 64.64 -> 64
        ([1380.0, 1380.0, 30.0], 64),
        // 12:00 is not shifted (720) but 11:59 is (719 + 1440 = 2159): sd 719.5 -> 0
        ([720.0, 719.0], 0),
        // identical bedtimes: sd 0 -> 100
        ([1380.0, 1380.0], 100),
        // one night: 70
        ([1380.0], 70),
        ([], 70),
    ])
    func consistencyFromBedtimes(bedtimes: [Double], expected: Int) {
        #expect(ScoreComponents.consistency(bedtimeMinutes: bedtimes) == expected)
    }

    @Test(arguments: [
        (0.20, 0.25, 100.0),  // ideal
        (0.10, 0.25, 75.0),  // deep 100 - 0.10 x 500 = 50; rem 100; mean 75
        (0.20, 0.15, 80.0),  // rem 100 - 0.10 x 400 = 60; mean 80
        (0.0, 0.0, 0.0),  // deep 100 - 100 = 0; rem 100 - min(100, 100) = 0
        (0.45, 0.25, 50.0),  // deep |0.25| x 500 = 125, capped 100 -> 0; mean 50
    ])
    func nightStages(deep: Double, rem: Double, expected: Double) {
        #expect(
            abs(ScoreComponents.nightStagesScore(deepFraction: deep, remFraction: rem) - expected)
                < 1e-9)
    }

    @Test func stagesComponent() {
        #expect(ScoreComponents.stages(nightlyStageScores: []) == 60)
        #expect(ScoreComponents.stages(nightlyStageScores: [75, 80]) == 77)  // 77.5
        #expect(ScoreComponents.stages(nightlyStageScores: [100]) == 100)
        #expect(ScoreComponents.stages(nightlyStageScores: [0, 0]) == 0)
    }

    @Test func overallWeightedSum() {
        #expect(
            SleepScore.overall(
                ScoreComponents(duration: 100, efficiency: 100, consistency: 100, stages: 100))
                == 100)
        // 0.35 x 90 + 0.25 x 95 + 0.20 x 75 + 0.20 x 60 = 31.5 + 23.75 + 15 + 12 = 82.25
        #expect(
            SleepScore.overall(
                ScoreComponents(duration: 90, efficiency: 95, consistency: 75, stages: 60)) == 82)
        // 0.35 x 0 + 0.25 x 0 + 0.20 x 70 + 0.20 x 60 = 26
        #expect(
            SleepScore.overall(
                ScoreComponents(duration: 0, efficiency: 0, consistency: 70, stages: 60)) == 26)
    }

    @Test(arguments: [
        (100, SleepGrade.excellent), (90, .excellent), (89, .good), (75, .good), (74, .fair),
        (60, .fair), (59, .poor), (40, .poor), (39, .veryPoor), (0, .veryPoor),
    ])
    func grades(score: Int, grade: SleepGrade) {
        #expect(SleepGrade(score: score) == grade)
    }
}
