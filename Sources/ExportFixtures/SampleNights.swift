public import SleepCore

/// Simple, seeded sleep nights for exports, until the SleepFixtures generator feeds the
/// writer: per night an iPhone `InBed` span and an Apple Watch staged night (core, deep,
/// REM with short awake spells), all with `HKTimeZone` metadata.
public enum SampleNights {
    /// The Watch's source name.
    public static let watchSource = "Anna’s Apple Watch"
    /// The iPhone's source name.
    public static let phoneSource = "Anna’s iPhone"

    /// Generates `nights` consecutive nights whose first evening is the day
    /// `firstEveningDaysSince1970` (days since 1970-01-01) in `timeZoneIdentifier` at a
    /// fixed `utcOffsetSeconds`.
    public static func generate(
        seed: UInt64, nights: Int, firstEveningDaysSince1970: Int64 = 19_358,
        timeZoneIdentifier: String = "Europe/Amsterdam", utcOffsetSeconds: Int32 = 3600
    ) -> [SleepSample] {
        var random = SeededGenerator(seed: seed)
        var samples: [SleepSample] = []
        samples.reserveCapacity(nights * 16)
        for night in 0..<Int64(max(nights, 0)) {
            let eveningMidnightUTC =
                (firstEveningDaysSince1970 + night) * 86_400 - Int64(utcOffsetSeconds)
            let bedtime =
                eveningMidnightUTC + 22 * 3600 + Int64.random(in: 0...(150 * 60), using: &random)
            let onset = bedtime + Int64.random(in: (5 * 60)...(30 * 60), using: &random)
            let wake = onset + Int64.random(in: (6 * 3600)...(8 * 3600 + 1800), using: &random)
            let outOfBed = wake + Int64.random(in: 60...(20 * 60), using: &random)
            samples.append(
                SleepSample(
                    source: phoneSource, start: bedtime, end: outOfBed, stage: .inBed,
                    timeZoneIdentifier: timeZoneIdentifier, printedUTCOffset: utcOffsetSeconds))
            var cursor = onset
            var isFirst = true
            while cursor < wake {
                let stage: SleepStage
                if !isFirst && Int.random(in: 0..<8, using: &random) == 0 {
                    stage = .awake
                } else {
                    stage = [SleepStage.core, .core, .deep, .rem].randomElement(using: &random) ?? .core
                }
                isFirst = false
                let length =
                    stage == .awake
                    ? Int64.random(in: 60...(6 * 60), using: &random)
                    : Int64.random(in: (10 * 60)...(45 * 60), using: &random)
                let end = min(cursor + length, wake)
                samples.append(
                    SleepSample(
                        source: watchSource, start: cursor, end: end, stage: stage,
                        timeZoneIdentifier: timeZoneIdentifier, printedUTCOffset: utcOffsetSeconds))
                cursor = end
            }
        }
        return samples
    }
}
