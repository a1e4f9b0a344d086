import Foundation
public import SleepCore

/// A seeded, deterministic generator of realistic sleep-analysis sample streams, for
/// tests and benchmarks.
///
/// Each night is drawn from its own generator seeded by (seed, user, evening date), so a
/// night is the same whatever date range is asked for, and users are independent. The
/// watch writes core/deep/REM cycles of about 90 minutes (deep early, REM late) with
/// short Awake samples between them, about 30 samples a night, all carrying the night's
/// `HKTimeZone`; the iPhone writes InBed records split by pick-ups; a third-party app
/// writes one unstaged sample without a zone. There are naps, missing nights, broken
/// (two-fragment) nights, the home zone's daylight-saving changes and trips.
public struct SleepStreamGenerator: Sendable {
    /// The seed all users' streams derive from.
    public let seed: UInt64
    /// The stream's shape.
    public let configuration: SleepStreamConfiguration
    private let zones: [String: TimeZone]

    /// Creates a generator.
    public init(seed: UInt64, configuration: SleepStreamConfiguration = SleepStreamConfiguration()) {
        self.seed = seed
        self.configuration = configuration
        var zones: [String: TimeZone] = [:]
        let identifiers =
            [configuration.homeTimeZoneIdentifier] + [configuration.yearlyTripTimeZoneIdentifier].compactMap { $0 }
            + configuration.travelStays.map(\.timeZoneIdentifier)
        for identifier in identifiers {
            zones[identifier] = TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)
        }
        self.zones = zones
    }

    /// The Apple Watch source name of a user.
    public func watchSource(forUser user: Int) -> String { "\(personName(user))'s Apple Watch" }

    /// The iPhone source name of a user.
    public func phoneSource(forUser user: Int) -> String { "\(personName(user))'s iPhone" }

    private func personName(_ user: Int) -> String {
        user == 0 ? configuration.personName : "\(configuration.personName) \(user)"
    }

    /// The zone of the night that starts on the evening of `date` for a user: a travel
    /// stay's zone, the yearly trip's, or home.
    public func timeZoneIdentifier(forEvening date: LocalDate, user: Int = 0) -> String {
        if let stay = configuration.travelStays.first(where: { $0.contains(evening: date) }) {
            return stay.timeZoneIdentifier
        }
        if let trip = yearlyTrip(year: date.year, user: user), trip.contains(evening: date) {
            return trip.timeZoneIdentifier
        }
        return configuration.homeTimeZoneIdentifier
    }

    /// The yearly trip of a user in a year, when configured.
    public func yearlyTrip(year: Int, user: Int = 0) -> TravelStay? {
        guard let zone = configuration.yearlyTripTimeZoneIdentifier, configuration.yearlyTripNights > 0 else {
            return nil
        }
        var random = SplitMix64(mixing: seed, UInt64(truncatingIfNeeded: user), UInt64(truncatingIfNeeded: year), 7)
        let start = LocalDate(year: year, month: 1, day: 1).adding(days: Int(random.integer(in: 40...300)))
        return TravelStay(timeZoneIdentifier: zone, firstEvening: start, nights: configuration.yearlyTripNights)
    }

    /// All samples of one user for the nights starting on the evenings `first` through
    /// `last` (and the naps of those days), in chronological order of generation.
    public func samples(forUser user: Int = 0, from first: LocalDate, through last: LocalDate) -> [SleepSample] {
        var output: [SleepSample] = []
        let days = max(0, last.daysSinceEpoch - first.daysSinceEpoch + 1)
        output.reserveCapacity(days * 40)
        let writer = NightWriter(
            configuration: configuration, watch: watchSource(forUser: user), phone: phoneSource(forUser: user))
        var day = first.daysSinceEpoch
        while day <= last.daysSinceEpoch {
            let evening = LocalDate(daysSinceEpoch: day)
            let identifier = timeZoneIdentifier(forEvening: evening, user: user)
            let zone = zones[identifier] ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt
            var random = SplitMix64(
                mixing: seed, UInt64(truncatingIfNeeded: user), UInt64(bitPattern: Int64(day)))
            writer.writeDay(evening, zoneIdentifier: identifier, zone: zone, random: &random, into: &output)
            day += 1
        }
        return output
    }
}
