import SleepCore
import Testing

/// Each rule of spec section 3 at and around its thresholds.
@Suite("Night builder rules")
struct NightRuleTests {
    @Test("Rule 1 joins by the cluster's running maximum end, not the previous sample's end")
    func clusterJoinUsesRunningMaximum() throws {
        let result = build([
            sample("Watch", "2026-03-01 22:00", "2026-03-02 06:00", .asleepUnspecified),
            sample("Watch", "2026-03-01 23:00", "2026-03-01 23:30", .core),
            sample("Watch", "2026-03-02 07:20", "2026-03-02 08:00", .core),  // 80 min after 06:00
        ])
        let night = try #require(result.nights.first)
        #expect(night.fragmentCount == 1)
        #expect(night.asleepSeconds == 8 * hour + 40 * minute)
        #expect(night.wake == instant("2026-03-02 08:00"))
    }

    @Test(
        "Rule 1 threshold: a 90 min gap joins, 90 min 1 s starts a new cluster (chained by A1)",
        arguments: [(Int64(90 * 60), 1), (Int64(90 * 60 + 1), 2)])
    func clusterJoinThreshold(gap: Int64, fragments: Int) throws {
        let start = instant("2026-03-01 23:00")
        let result = build([
            SleepSample(source: "Watch", start: start, end: start + 4 * hour, stage: .core),
            SleepSample(
                source: "Watch", start: start + 4 * hour + gap, end: start + 7 * hour + gap, stage: .core),
        ])
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(night.fragmentCount == fragments)
        #expect(night.asleepSeconds == 7 * hour)
        #expect(night.awakeSeconds == gap)
        #expect(night.wakeUps == 1)
    }

    @Test("A1 threshold: clusters 3 h apart chain, 3 h 1 s apart do not")
    func fragmentChainThreshold() {
        for (gap, expectedNights, expectedNaps) in [(3 * hour, 1, 0), (3 * hour + 1, 1, 1)] {
            let start = instant("2026-03-01 22:00")
            let result = build([
                SleepSample(source: "Watch", start: start, end: start + 2 * hour, stage: .core),
                SleepSample(
                    source: "Watch", start: start + 2 * hour + gap, end: start + 7 * hour + gap, stage: .core),
            ])
            #expect(result.nights.count == expectedNights)
            #expect(result.naps.count == expectedNaps)
            if expectedNaps == 1 {
                // Unchained: the 5 h piece is the night, the 2 h piece a nap.
                #expect(result.nights.first?.asleepSeconds == 5 * hour)
                #expect(result.naps.first?.asleepSeconds == 2 * hour)
            } else {
                #expect(result.nights.first?.asleepSeconds == 7 * hour)
                #expect(result.nights.first?.timeInBedSeconds == 7 * hour + gap)
            }
        }
    }

    @Test(
        "Rule 3: 3 h of sleep is a night, 2 h 59 min 59 s is a nap", arguments: [Int64(3 * 3600), Int64(3 * 3600 - 1)])
    func mainSleepThreshold(length: Int64) {
        let start = instant("2026-03-01 23:00")
        let result = build([SleepSample(source: "Watch", start: start, end: start + length, stage: .core)])
        #expect(result.nights.count == (length >= 3 * hour ? 1 : 0))
        #expect(result.naps.count == (length >= 3 * hour ? 0 : 1))
    }

    @Test("Rule 3: the threshold counts sleep, not span (two 1 h 20 min fragments are naps)")
    func thresholdCountsSleepNotSpan() {
        let result = build([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 00:20", .core),
            sample("Watch", "2026-03-02 03:00", "2026-03-02 04:20", .core),
        ])
        #expect(result.nights.isEmpty)
        #expect(result.naps.count == 2)  // one nap per cluster
        #expect(result.naps.map(\.asleepSeconds) == [80 * minute, 80 * minute])
    }

    @Test("Rule 4: a tie goes to the source with stage data, then to the source name")
    func tieBreaks() throws {
        let staged = try #require(
            build([
                sample("Alpha Phone", "2026-03-01 23:00", "2026-03-02 06:00", .asleepUnspecified),
                sample("Zeta Watch", "2026-03-01 23:00", "2026-03-02 06:00", .core),
            ]).nights.first)
        #expect(staged.source == "Zeta Watch")
        #expect(staged.setAsideSources == ["Alpha Phone"])

        let byName = build([
            sample("Zeta Phone", "2026-03-01 23:00", "2026-03-02 06:00", .asleepUnspecified),
            sample("Alpha Phone", "2026-03-01 23:00", "2026-03-02 06:00", .asleepUnspecified),
        ])
        #expect(byName.nights.count == 1)
        #expect(byName.nights.first?.source == "Alpha Phone")
        #expect(byName.nights.first?.setAsideSources == ["Zeta Phone"])
        #expect(byName.naps.isEmpty)
    }

    @Test("Rule 4: a candidate overlapping another wake day's night is never accepted")
    func overlapAcrossWakeDays() throws {
        // A: 16:00-23:30 on March 1 (7.5 h, wakes March 1). B: 22:00-04:00 (6 h, wakes
        // March 2) overlaps A, so March 2 has no night and B adds nothing.
        let result = build([
            sample("A", "2026-03-01 16:00", "2026-03-01 23:30", .core),
            sample("B", "2026-03-01 22:00", "2026-03-02 04:00", .asleepUnspecified),
        ])
        let night = try #require(result.nights.first)
        #expect(result.nights.count == 1)
        #expect(night.source == "A")
        #expect(night.wakeDay == LocalDate(year: 2026, month: 3, day: 1))
        #expect(night.setAsideSources == ["B"])
        #expect(result.naps.isEmpty)
    }

    @Test("Rule 4: a losing candidate that overlaps nothing becomes naps, one per cluster")
    func loserBecomesOneNapPerCluster() {
        let result = build([
            sample("Watch", "2026-03-02 00:00", "2026-03-02 08:00", .core),
            sample("Watch", "2026-03-02 12:00", "2026-03-02 14:00", .core),
            sample("Watch", "2026-03-02 15:40", "2026-03-02 17:40", .core),  // 100 min later
        ])
        #expect(result.nights.count == 1)
        #expect(result.nights.first?.asleepSeconds == 8 * hour)
        #expect(result.naps.count == 2)
        #expect(result.naps.map(\.start) == [instant("2026-03-02 12:00"), instant("2026-03-02 15:40")])
    }

    @Test("A short cluster of another source inside a night is set aside, not a nap")
    func overlappingShortClusterIsSetAside() throws {
        let result = build([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 06:00", .core),
            sample("iPhone", "2026-03-02 01:00", "2026-03-02 02:00", .asleepUnspecified),
        ])
        #expect(result.naps.isEmpty)
        let night = try #require(result.nights.first)
        #expect(night.asleepSeconds == 7 * hour)
        #expect(night.setAsideSources == ["iPhone"])
    }

    @Test("Two sources recording the same nap count it once")
    func duplicateNapAcrossSources() {
        let result = build([
            sample("Watch", "2026-03-01 14:00", "2026-03-01 14:40", .core),
            sample("Garmin", "2026-03-01 14:05", "2026-03-01 14:50", .asleepUnspecified),
        ])
        #expect(result.naps.count == 1)
        #expect(result.naps.first?.source == "Garmin")  // 45 min beats 40 min
        #expect(result.naps.first?.asleepSeconds == 45 * minute)
    }

    @Test("Rule 5: a 2 min stretch is a wake-up; awake samples and gaps both count as awake")
    func wakeUpThreshold() throws {
        let night = try #require(
            build([
                sample("Watch", "2026-03-01 23:00", "2026-03-02 01:00", .core),
                sample("Watch", "2026-03-02 01:00", "2026-03-02 01:02", .awake),
                sample("Watch", "2026-03-02 01:02", "2026-03-02 03:00", .deep),
                // A 1 min 59 s gap with no sample at all.
                sample("Watch", "2026-03-02 03:01:59", "2026-03-02 06:00", .rem),
                // An awake sample followed directly by a gap: one stretch of 3 min.
                sample("Watch", "2026-03-02 06:00", "2026-03-02 06:01", .awake),
                sample("Watch", "2026-03-02 06:03", "2026-03-02 07:00", .core),
            ]).nights.first)
        #expect(night.awakeSeconds == 2 * minute + 119 + 3 * minute)
        #expect(night.wakeUps == 2)
        #expect(night.asleepIntervals.count == 4)
    }

    @Test("Rule 6: exactly 3 h before onset counts; after onset does not; any source counts")
    func latencyEdges() throws {
        let sleep = sample("Watch", "2026-03-01 23:30", "2026-03-02 06:30", .core)
        let exact = try #require(
            build([sample("Bedside", "2026-03-01 20:30", "2026-03-01 21:00", .inBed), sleep]).nights.first)
        #expect(exact.latencySeconds == 3 * hour)
        #expect(exact.timeInBedSeconds == 10 * hour)

        let after = try #require(
            build([sample("iPhone", "2026-03-01 23:31", "2026-03-02 06:30", .inBed), sleep]).nights.first)
        #expect(after.latencySeconds == nil)

        let atOnset = try #require(
            build([sample("iPhone", "2026-03-01 23:30", "2026-03-02 06:30", .inBed), sleep]).nights.first)
        #expect(atOnset.latencySeconds == 0)

        let earliestWins = try #require(
            build([
                sample("iPhone", "2026-03-01 22:10", "2026-03-01 22:40", .inBed),
                sample("iPhone", "2026-03-01 22:45", "2026-03-02 06:30", .inBed),
                sample("iPhone", "2026-03-01 19:00", "2026-03-01 19:30", .inBed),
                sleep,
            ]).nights.first)
        #expect(earliestWins.latencySeconds == 80 * minute)
    }

    @Test("A2: overlapping samples of one source count once, deep > rem > core > unspecified")
    func stagePrecedence() throws {
        let night = try #require(
            build([
                sample("Watch", "2026-03-01 23:00", "2026-03-02 03:00", .core),
                sample("Watch", "2026-03-02 00:00", "2026-03-02 01:00", .deep),
                sample("Watch", "2026-03-02 00:30", "2026-03-02 02:00", .rem),
                sample("Watch", "2026-03-02 02:30", "2026-03-02 04:00", .asleepUnspecified),
            ]).nights.first)
        // Union 23:00-04:00 = 5 h. deep 00:00-01:00, rem 01:00-02:00, core 23:00-00:00 +
        // 02:00-03:00, unspecified 03:00-04:00.
        #expect(night.asleepSeconds == 5 * hour)
        #expect(night.stages == StageSeconds(deep: hour, rem: hour, core: 2 * hour, unspecified: hour))
        #expect(night.hasStageData)
        #expect(
            night.asleepIntervals == [TimeSpan(start: instant("2026-03-01 23:00"), end: instant("2026-03-02 04:00"))])
        #expect(
            night.stageSegments.map(\.stage) == [.core, .deep, .rem, .core, .asleepUnspecified])
        #expect(night.stageSegments.map(\.span.duration) == [hour, hour, hour, hour, hour])
    }

    @Test("Stage data needs core, deep and rem to cover at least half of the sleep")
    func stageDataThreshold() throws {
        let half = try #require(
            build([
                sample("Watch", "2026-03-01 23:00", "2026-03-02 02:00", .asleepUnspecified),
                sample("Watch", "2026-03-02 02:00", "2026-03-02 05:00", .core),
            ]).nights.first)
        #expect(half.hasStageData)
        let less = try #require(
            build([
                sample("Watch", "2026-03-01 22:30", "2026-03-02 05:00", .asleepUnspecified),
                sample("Watch", "2026-03-02 05:00", "2026-03-02 05:30", .core),
            ]).nights.first)
        #expect(!less.hasStageData)
        #expect(less.stages == StageSeconds(core: 30 * minute, unspecified: 6 * hour + 30 * minute))
    }

    @Test("Efficiency is asleep over time in bed, at most 1")
    func efficiency() throws {
        let night = try #require(
            build([
                sample("iPhone", "2026-03-01 22:00", "2026-03-02 07:00", .inBed),
                sample("Watch", "2026-03-01 23:00", "2026-03-02 03:00", .core),
                sample("Watch", "2026-03-02 03:30", "2026-03-02 07:00", .core),
            ]).nights.first)
        // asleep 7.5 h, in bed 22:00-07:00 = 9 h.
        #expect(night.efficiency == 7.5 / 9)
        #expect(night.latencySeconds == hour)
        #expect(night.awakeSeconds == 30 * minute)
    }

    @Test("Samples whose end is not after their start are ignored by the builder")
    func zeroLengthIgnored() {
        let start = instant("2026-03-01 23:00")
        let result = build([
            SleepSample(source: "Watch", start: start, end: start, stage: .core),
            SleepSample(source: "Watch", start: start + 8 * hour, end: start, stage: .core),
        ])
        #expect(result.nights.isEmpty)
        #expect(result.naps.isEmpty)
    }

    @Test("Extreme instants and settings are ignored or clamped, never a crash")
    func extremes() {
        let result = NightBuilder(
            rules: NightRules(
                clusterJoinGapSeconds: .max, fragmentChainGapSeconds: .min, mainSleepMinimumSeconds: -5,
                wakeUpMinimumSeconds: .max, inBedLookbackSeconds: .max)
        ).build(from: [
            SleepSample(source: "A", start: .min, end: .max, stage: .core),
            SleepSample(source: "A", start: 0, end: .max, stage: .inBed),  // ignored
            SleepSample(source: "B", start: 0, end: 10_000, stage: .inBed),
            SleepSample(source: "A", start: 100, end: 200, stage: .core),
        ])
        #expect(result.nights.count == 1)
        #expect(result.nights.first?.asleepSeconds == 100)
        #expect(result.nights.first?.latencySeconds == 100)
        #expect(NightRules(clusterJoinGapSeconds: -1).clamped.clusterJoinGapSeconds == 0)
    }

    @Test("Custom rules are honoured")
    func customRules() {
        let rules = NightRules(mainSleepMinimumSeconds: 4 * hour)
        let result = build([sample("Watch", "2026-03-01 23:00", "2026-03-02 02:30", .core)], rules: rules)
        #expect(result.nights.isEmpty)
        #expect(result.naps.count == 1)
        #expect(NightRules.standard.clusterJoinGapSeconds == 90 * 60)
        #expect(NightRules.standard.fragmentChainGapSeconds == 3 * 3600)
        #expect(NightRules.standard.mainSleepMinimumSeconds == 3 * 3600)
        #expect(NightRules.standard.wakeUpMinimumSeconds == 120)
        #expect(NightRules.standard.inBedLookbackSeconds == 3 * 3600)
    }
}
