import Foundation
import SleepCore
import SleepFixtures
import Testing

/// The seeded sample-stream generator is deterministic and realistic.
@Suite("Sample stream generator")
struct FixtureGeneratorTests {
    let january = LocalDate(year: 2025, month: 1, day: 1)
    let december = LocalDate(year: 2025, month: 12, day: 31)

    @Test("SplitMix64 matches the reference sequence for seed 0")
    func splitMixReference() {
        // First outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("Equal seeds give equal streams; other seeds and users differ")
    func determinism() {
        let generator = SleepStreamGenerator(seed: 9)
        let first = generator.samples(from: january, through: december)
        #expect(first == SleepStreamGenerator(seed: 9).samples(from: january, through: december))
        #expect(first != SleepStreamGenerator(seed: 10).samples(from: january, through: december))
        let otherUser = generator.samples(forUser: 1, from: january, through: december)
        #expect(otherUser != first)
        #expect(otherUser.contains { $0.source == "Anna 1's Apple Watch" })
    }

    @Test("A night is the same whatever range it is generated in")
    func rangeIndependent() {
        let generator = SleepStreamGenerator(seed: 4)
        let alone = generator.samples(
            from: LocalDate(year: 2025, month: 6, day: 10), through: LocalDate(year: 2025, month: 6, day: 19))
        let inYear = Set(generator.samples(from: january, through: december))
        #expect(alone.count > 100)
        #expect(alone.allSatisfy { inYear.contains($0) })
    }

    @Test("Watch nights have stage cycles (deep early, REM late) and about 30 samples")
    func watchNights() throws {
        let generator = SleepStreamGenerator(seed: 5)
        let samples = generator.samples(from: january, through: december)
        let watch = samples.filter { $0.source == generator.watchSource(forUser: 0) }
        let nights = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
        let watchNights = nights.filter { $0.source == generator.watchSource(forUser: 0) }
        #expect(watchNights.count > 250)
        let perNight = Double(watch.count) / Double(watchNights.count)
        #expect(perNight > 22 && perNight < 38)
        #expect(watch.allSatisfy { $0.timeZoneIdentifier != nil })
        #expect(Set(watch.map(\.stage)) == [.core, .deep, .rem, .awake])
        // Deep sleep in the first half of the night outweighs the second; REM the reverse.
        var deepEarly: Int64 = 0
        var deepLate: Int64 = 0
        var remEarly: Int64 = 0
        var remLate: Int64 = 0
        for night in watchNights {
            let middle = night.onset + (night.wake - night.onset) / 2
            for segment in night.stageSegments {
                let early = segment.span.start < middle
                if segment.stage == .deep {
                    if early { deepEarly += segment.span.duration } else { deepLate += segment.span.duration }
                }
                if segment.stage == .rem {
                    if early { remEarly += segment.span.duration } else { remLate += segment.span.duration }
                }
            }
        }
        #expect(deepEarly > 2 * deepLate)
        #expect(remLate > remEarly)
        let averageHours = Double(nights.reduce(0) { $0 + $1.asleepSeconds }) / Double(nights.count) / 3600
        #expect(averageHours > 6.3 && averageHours < 8)
    }

    @Test("iPhone InBed records are fragmented, third-party samples carry no zone")
    func phoneAndThirdParty() {
        let generator = SleepStreamGenerator(seed: 6)
        let samples = generator.samples(from: january, through: december)
        let phone = samples.filter { $0.source == generator.phoneSource(forUser: 0) }
        #expect(phone.allSatisfy { $0.stage == .inBed })
        // Group phone records into nights by gaps of over an hour; some nights have dozens.
        var pieces: [Int] = [1]
        for (earlier, later) in zip(phone, phone.dropFirst()) {
            if later.start - earlier.end > 3600 { pieces.append(1) } else { pieces[pieces.count - 1] += 1 }
        }
        #expect(pieces.max() ?? 0 >= 20)
        #expect(pieces.filter { $0 == 1 }.count > 50)
        let garmin = samples.filter { $0.source == "Garmin Connect" }
        #expect(garmin.count > 20)
        #expect(garmin.allSatisfy { $0.timeZoneIdentifier == nil && $0.printedUTCOffset == 7200 })
    }

    @Test("Nights follow the home zone's clock changes and the yearly trip's zone")
    func zonesAndTrips() throws {
        let generator = SleepStreamGenerator(seed: 7)
        let trip = try #require(generator.yearlyTrip(year: 2025))
        #expect(trip.timeZoneIdentifier == "America/Los_Angeles")
        #expect(trip.nights == 7)
        let samples = generator.samples(from: january, through: december)
        let nights = NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
        let away = nights.filter { $0.timeZoneIdentifier == "America/Los_Angeles" }
        #expect(away.count >= 5 && away.count <= 7)
        // Local bedtimes stay in the evening in both zones and in summer and winter time.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        for night in nights where night.source.hasSuffix("Apple Watch") {
            let zone = night.timeZoneIdentifier == "America/Los_Angeles" ? losAngeles : berlin
            let onsetHour = LocalTime.secondsSinceLocalMidnight(of: night.onset, in: zone) / 3600
            #expect(onsetHour >= 19 || onsetHour <= 3)
        }
    }

    @Test("Missing nights and naps occur at their configured rates")
    func configurationRates() {
        let none = SleepStreamConfiguration(
            missingNightProbability: 1, napProbability: 0, yearlyTripTimeZoneIdentifier: nil)
        #expect(SleepStreamGenerator(seed: 1, configuration: none).samples(from: january, through: december).isEmpty)
        let legacy = SleepStreamConfiguration(stagedSleepSince: LocalDate(year: 2026, month: 1, day: 1))
        let samples = SleepStreamGenerator(seed: 1, configuration: legacy).samples(from: january, through: december)
        #expect(!samples.contains { $0.stage.isStaged })
        #expect(samples.contains { $0.stage == .asleepUnspecified })
    }
}
