import SleepCore
import SleepFixtures
import Testing

/// Properties of the night builder over generated histories (two years per seed, with
/// watch, phone, third-party app, naps, broken nights, clock changes and a trip).
@Suite("Night builder properties")
struct NightPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3]

    static func history(_ seed: UInt64) -> [SleepSample] {
        SleepStreamGenerator(seed: seed).samples(
            from: LocalDate(year: 2024, month: 1, day: 1), through: LocalDate(year: 2025, month: 12, day: 31))
    }

    static func nights(_ samples: [SleepSample]) -> NightBuildResult {
        NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin")
    }

    @Test("The histories are not trivial", arguments: seeds)
    func historiesAreRich(seed: UInt64) {
        let result = Self.nights(Self.history(seed))
        #expect(result.nights.count > 600)
        #expect(result.naps.count > 20)
        #expect(result.nights.contains { $0.fragmentCount > 1 })
        #expect(result.nights.contains { !$0.setAsideSources.isEmpty })
        #expect(result.nights.contains { $0.timeZoneIdentifier == "America/Los_Angeles" })
        #expect(result.nights.contains { $0.latencySeconds != nil })
        #expect(result.nights.contains { $0.latencySeconds == nil })
    }

    @Test("Input order is irrelevant", arguments: seeds)
    func orderIrrelevant(seed: UInt64) {
        let samples = Self.history(seed)
        let expected = Self.nights(samples)
        var random = SplitMix64(seed: seed)
        #expect(Self.nights(samples.shuffled(using: &random)) == expected)
        #expect(Self.nights(samples.reversed()) == expected)
    }

    @Test("An exact duplicate changes nothing", arguments: seeds)
    func duplicatesChangeNothing(seed: UInt64) {
        let samples = Self.history(seed)
        var random = SplitMix64(seed: seed &+ 100)
        var doubled = samples
        for _ in 0..<500 { doubled.append(samples[Int(random.integer(in: 0...Int64(samples.count - 1)))]) }
        #expect(Self.nights(doubled) == Self.nights(samples))
        #expect(Self.nights(samples + samples) == Self.nights(samples))
    }

    @Test("Splitting an asleep sample into two touching halves changes nothing", arguments: seeds)
    func splittingChangesNothing(seed: UInt64) {
        let samples = Self.history(seed)
        var split: [SleepSample] = []
        for sample in samples {
            if sample.stage.isAsleep, sample.duration >= 2 {
                var first = sample
                var second = sample
                first.end = sample.start + sample.duration / 2
                second.start = first.end
                split.append(first)
                split.append(second)
            } else {
                split.append(sample)
            }
        }
        #expect(split.count > samples.count)
        #expect(Self.nights(split) == Self.nights(samples))
    }

    @Test("Every night is consistent, nights never overlap, naps overlap nothing", arguments: seeds)
    func invariants(seed: UInt64) {
        let result = Self.nights(Self.history(seed))
        for night in result.nights {
            #expect(night.asleepSeconds > 0)
            #expect(night.asleepSeconds <= night.timeInBedSeconds)
            #expect(night.efficiency <= 1 && night.efficiency > 0)
            #expect(night.stages.total == night.asleepSeconds)
            #expect(night.asleepIntervals.reduce(0) { $0 + $1.duration } == night.asleepSeconds)
            #expect(night.stageSegments.reduce(0) { $0 + $1.span.duration } == night.asleepSeconds)
            #expect(night.awakeSeconds == night.wake - night.onset - night.asleepSeconds)
            #expect(night.timeInBedSeconds == night.wake - night.bedtime)
            #expect(night.bedtime <= night.onset && night.onset < night.wake)
            #expect(night.asleepIntervals.first?.start == night.onset)
            #expect(night.asleepIntervals.last?.end == night.wake)
            #expect(night.asleepSeconds >= 3 * 3600)
            #expect(!night.setAsideSources.contains(night.source))
            #expect(night.setAsideSources == Array(Set(night.setAsideSources)).sorted())
            #expect(night.wakeUps <= max(0, night.asleepIntervals.count - 1))
        }
        for (earlier, later) in zip(result.nights, result.nights.dropFirst()) {
            #expect(earlier.wake <= later.onset)
        }
        #expect(Set(result.nights.map(\.wakeDay)).count == result.nights.count)
        let spans = (result.nights.map { ($0.onset, $0.wake) } + result.naps.map { ($0.start, $0.end) })
            .sorted { $0.0 < $1.0 }
        for (earlier, later) in zip(spans, spans.dropFirst()) {
            #expect(earlier.1 <= later.0)
        }
        for nap in result.naps {
            #expect(nap.asleepSeconds > 0 && nap.asleepSeconds <= nap.end - nap.start)
        }
    }

    @Test("A second source that only repeats the first never adds sleep", arguments: seeds)
    func mirroredSourceAddsNothing(seed: UInt64) {
        let samples = Self.history(seed)
        let original = Self.nights(samples)
        let watch = SleepStreamGenerator(seed: seed).watchSource(forUser: 0)
        for mirrorName in ["Watch Mirror", "Aaron's Mirror"] {
            let mirror = samples.filter { $0.source == watch }.map { sample -> SleepSample in
                var copy = sample
                copy.source = mirrorName
                return copy
            }
            let mirrored = Self.nights(samples + mirror)
            #expect(mirrored.nights.map(\.wakeDay) == original.nights.map(\.wakeDay))
            #expect(mirrored.nights.map(\.asleepSeconds) == original.nights.map(\.asleepSeconds))
            #expect(mirrored.naps.map(\.asleepSeconds) == original.naps.map(\.asleepSeconds))
            #expect(mirrored.nights.contains { $0.setAsideSources.contains(mirrorName) || $0.source == mirrorName })
        }
    }
}
