import SleepCore
import Testing

/// Night confidence's worked examples (docs/sleep-rules.md, "Confidence per night") and
/// its boundaries: a dead watch, an all-phone history, two devices that disagree.
@Suite("Night confidence")
struct NightConfidenceTests {
    static func assessed(_ samples: [SleepSample]) throws -> (Night, NightConfidence) {
        let night = try #require(build(samples).nights.first)
        let confidence = try #require(NightConfidence.assess(nights: [night], samples: samples).first)
        return (night, confidence)
    }

    @Test("a staged 7 h night, fully covered, 5 % awake: 1.0, high")
    func staged() throws {
        let (_, confidence) = try Self.assessed([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 02:30", .core),
            sample("Watch", "2026-03-02 02:30", "2026-03-02 02:51", .awake),
            sample("Watch", "2026-03-02 02:51", "2026-03-02 06:21", .deep),
        ])
        #expect(confidence.value == 1)
        #expect(confidence.coverage == 1 && confidence.dataKind == .stages && confidence.mark == .high)
    }

    @Test("an iPhone's 7.5 h asleep-unspecified night: 0.8 (the all-phone history)")
    func phone() throws {
        let (_, confidence) = try Self.assessed([
            sample("iPhone", "2026-03-01 23:00", "2026-03-02 06:30", .asleepUnspecified),
            sample("iPhone", "2026-03-01 22:45", "2026-03-02 06:45", .inBed),
        ])
        #expect(confidence.value == 0.8)
        #expect(confidence.dataKind == .asleepWithoutStages && !confidence.isTruncated)
    }

    @Test("the A1 night, 23:00-02:30 and 05:00-08:48 core: 0.572")
    func fragmented() throws {
        let (_, confidence) = try Self.assessed([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 02:30", .core),
            sample("Watch", "2026-03-02 05:00", "2026-03-02 08:48", .core),
        ])
        #expect(abs(confidence.coverage - 0.744898) < 0.000001)
        #expect(abs(confidence.fragmentation - 0.767347) < 0.000001)
        #expect(confidence.value == 0.572)
        #expect(confidence.mark == .medium)
    }

    @Test("a dead watch: sleep from 23:00 stops at 03:00, the phone's in-bed sample runs to 07:00: truncated, 0.6")
    func deadWatch() throws {
        let (_, confidence) = try Self.assessed([
            sample("Watch", "2026-03-01 23:00", "2026-03-02 03:00", .core),
            sample("iPhone", "2026-03-01 22:50", "2026-03-02 07:00", .inBed),
        ])
        #expect(confidence.isTruncated)
        #expect(confidence.value == 0.6)
    }

    @Test("an in-bed sample ending 89 min after a staged wake does not truncate; 90 min does")
    func truncationBoundary() throws {
        for (minutes, truncated) in [(89, false), (90, true)] {
            let end = "2026-03-02 0\(7 + minutes / 60):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
            let (_, confidence) = try Self.assessed([
                sample("Watch", "2026-03-01 23:00", "2026-03-02 07:00", .core),
                sample("iPhone", "2026-03-01 22:50", end, .inBed),
            ])
            #expect(confidence.isTruncated == truncated, "\(minutes) min")
        }
    }

    @Test("a second device asleep 2 h less inside the night: 0.85; within 60 min: 1")
    func agreement() throws {
        let watch = [sample("Watch", "2026-03-01 23:00", "2026-03-02 07:00", .core)]
        let (_, far) = try Self.assessed(
            watch + [sample("iPhone", "2026-03-02 01:00", "2026-03-02 07:00", .asleepUnspecified)])
        #expect(far.agreement == 0.85 && far.value == 0.85)
        let (_, near) = try Self.assessed(
            watch + [sample("iPhone", "2026-03-01 23:30", "2026-03-02 07:00", .asleepUnspecified)])
        #expect(near.agreement == 1)
    }

    @Test("plausibility by asleep hours", arguments: [(3.5, 0.8), (4.0, 1.0), (11.0, 1.0), (12.0, 0.8), (14.0, 0.5)])
    func plausibility(hours: Double, factor: Double) throws {
        let end = instant("2026-03-01 20:00") + sleepHours(hours)
        let samples = [SleepSample(source: "Watch", start: instant("2026-03-01 20:00"), end: end, stage: .core)]
        let (_, confidence) = try Self.assessed(samples)
        #expect(confidence.plausibility == factor)
    }

    @Test("aggregates carry their night count, mean, low nights and the small-sample flag")
    func summary() {
        let six = ConfidenceSummary([1, 0.8, 0.4, 0.6, 1, 0.9])
        #expect(six.nights == 6 && six.meanConfidence == 0.783 && six.lowNights == 1 && six.isSmallSample)
        #expect(six.mark == .medium)
        let seven = ConfidenceSummary([1, 1, 1, 1, 1, 1, 1])
        #expect(!seven.isSmallSample && seven.mark == .high)
        let none = ConfidenceSummary([])
        #expect(none.meanConfidence == nil && none.mark == nil && none.isSmallSample)
    }

    @Test("property: confidence lies in 0...1 and does not depend on the samples' order", arguments: [1, 2, 3, 4])
    func properties(seed: UInt64) {
        var random = TestRandom(seed: seed)
        var samples: [SleepSample] = []
        var start = instant("2026-03-01 22:00")
        for _ in 0..<40 {
            let length = Int64(600 + random.unit() * 5400)
            let stage: SleepStage = [.core, .deep, .rem, .awake, .asleepUnspecified, .inBed][Int(random.unit() * 6)]
            samples.append(
                SleepSample(
                    source: random.unit() < 0.7 ? "Watch" : "iPhone", start: start, end: start + length, stage: stage))
            start += Int64(random.unit() * Double(length) * 1.3)
        }
        let nights = build(samples).nights
        let forward = NightConfidence.assess(nights: nights, samples: samples)
        let backward = NightConfidence.assess(nights: nights, samples: samples.reversed())
        #expect(forward == backward)
        for confidence in forward { #expect(confidence.value >= 0 && confidence.value <= 1) }
    }
}
