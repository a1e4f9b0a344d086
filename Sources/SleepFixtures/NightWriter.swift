import Foundation
import SleepCore

/// Writes one day's samples: an optional afternoon nap, then the night from that evening.
struct NightWriter {
    let configuration: SleepStreamConfiguration
    let watch: String
    let phone: String

    func writeDay(
        _ evening: LocalDate, zoneIdentifier: String, zone: TimeZone, random: inout SplitMix64,
        into output: inout [SleepSample]
    ) {
        let midnight = Int64(evening.daysSinceEpoch) * 86_400
        let staged = configuration.stagedSleepSince.map { evening >= $0 } ?? true
        func sample(_ source: String, _ start: Int64, _ end: Int64, _ stage: SleepStage, zoned: Bool = true)
            -> SleepSample
        {
            SleepSample(
                source: source, start: start, end: end, stage: stage,
                timeZoneIdentifier: zoned ? zoneIdentifier : nil, printedUTCOffset: configuration.printedUTCOffset)
        }

        // Afternoon nap on the watch.
        if random.chance(configuration.napProbability) {
            let start = instant(wall: midnight + random.integer(in: 13 * 3600...16 * 3600), zone: zone)
            let length = random.integer(in: 20 * 60...90 * 60)
            let middle = start + length / 2
            output.append(sample(watch, start, middle, staged ? .core : .asleepUnspecified))
            output.append(sample(watch, middle, start + length, staged ? .core : .asleepUnspecified))
        }
        if random.chance(configuration.missingNightProbability) { return }

        let weekendDelay = evening.isoWeekday >= 5 && evening.isoWeekday <= 6 ? configuration.weekendDelayMinutes : 0
        let bedMinutes =
            Double(configuration.meanBedtimeMinutes + weekendDelay) + random.normal()
            * configuration.bedtimeSpreadMinutes
        let inBed = instant(wall: midnight + Int64(bedMinutes * 60), zone: zone)
        let onset = inBed + random.integer(in: 4 * 60...40 * 60)
        let hours = min(10.5, max(3.5, configuration.meanSleepHours + random.normal() * configuration.sleepSpreadHours))
        let wake = onset + Int64(hours * 3600)

        let watchWorn = random.chance(configuration.watchNightProbability)
        if watchWorn {
            if random.chance(configuration.brokenNightProbability) {
                // Up in the night for longer than a cluster gap: two fragments.
                let breakStart = onset + (wake - onset) * random.integer(in: 30...55) / 100
                let breakEnd = breakStart + random.integer(in: 95 * 60...170 * 60)
                writeCycles(from: onset, to: breakStart, staged: staged, random: &random) {
                    output.append(sample(watch, $0, $1, $2))
                }
                output.append(sample(watch, breakStart, breakEnd, .awake))
                writeCycles(from: breakEnd, to: wake + (breakEnd - breakStart) / 2, staged: staged, random: &random) {
                    output.append(sample(watch, $0, $1, $2))
                }
            } else {
                writeCycles(from: onset, to: wake, staged: staged, random: &random) {
                    output.append(sample(watch, $0, $1, $2))
                }
            }
        }

        if random.chance(configuration.phoneNightProbability) {
            let start = inBed - random.integer(in: 0...10 * 60)
            let end = wake + random.integer(in: 0...15 * 60)
            let draw = random.unit()
            let pickUps: Int64 =
                draw < 0.7
                ? random.integer(in: 0...2)
                : draw < 0.95
                    ? random.integer(in: 3...10)
                    : random.integer(in: 10...Int64(max(10, configuration.maximumPhonePickUps)))
            var cursor = start
            let step = (end - start) / (pickUps + 1)
            for piece in 0..<pickUps {
                let pickUp = start + step * (piece + 1) + random.integer(in: -step / 4...step / 4)
                let back = pickUp + random.integer(in: 60...8 * 60)
                if pickUp > cursor, back < end {
                    output.append(sample(phone, cursor, pickUp, .inBed))
                    cursor = back
                }
            }
            output.append(sample(phone, cursor, end, .inBed))
        }

        let thirdPartyChance = watchWorn ? configuration.thirdPartyNightProbability : 0.5
        if random.chance(thirdPartyChance) {
            let start = onset + random.integer(in: -10 * 60...10 * 60)
            let end = wake + random.integer(in: -10 * 60...10 * 60)
            output.append(sample(configuration.thirdPartySource, start, end, .asleepUnspecified, zoned: false))
        }
    }

    /// Sleep cycles of 80-110 minutes: core, deep (long early), core, REM (long late),
    /// core (written as two samples, as the watch does), with a short Awake sample between
    /// most cycles.
    private func writeCycles(
        from start: Int64, to end: Int64, staged: Bool, random: inout SplitMix64,
        _ emit: (Int64, Int64, SleepStage) -> Void
    ) {
        var cursor = start
        var cycle = 0.0
        while end - cursor > 60 {
            let length = random.integer(in: 80 * 60...110 * 60)
            let deepShare = max(0.03, 0.32 - 0.08 * cycle)
            let remShare = min(0.42, 0.10 + 0.08 * cycle)
            let coreShare = (1 - deepShare - remShare) / 4
            let parts: [(SleepStage, Double)] = [
                (.core, coreShare), (.deep, deepShare), (.core, coreShare), (.rem, remShare), (.core, coreShare),
                (.core, coreShare),
            ]
            for (stage, share) in parts {
                let pieceEnd = min(end, cursor + max(60, Int64(Double(length) * share)))
                if pieceEnd > cursor { emit(cursor, pieceEnd, staged ? stage : .asleepUnspecified) }
                cursor = pieceEnd
                if cursor >= end { return }
            }
            if random.chance(0.7) {
                let awakeEnd = min(end, cursor + random.integer(in: 30...6 * 60))
                emit(cursor, awakeEnd, .awake)
                cursor = awakeEnd
            }
            cycle += 1
        }
    }

    /// The instant a wall clock in `zone` reads `wall` (seconds since 1970-01-01 local).
    private func instant(wall: Int64, zone: TimeZone) -> Int64 {
        let first = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall))))
        let guess = wall - first
        let second = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess))))
        return wall - second
    }
}
