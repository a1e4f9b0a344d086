import Foundation
import SleepCore
import Testing

/// Spec section 2: local zones, clock changes and travel. Instants are written in UTC by
/// hand from the zones' published rules.
@Suite("Local time and time zones")
struct TimeZoneTests {
    /// (zone, sleep start UTC, wake UTC, expected asleep seconds, expected wake day).
    static let clockChangeNights: [(String, String, String, Int64, String)] = [
        // Europe/Berlin: 2026-03-29 02:00 CET -> 03:00 CEST. 23:00 CET = 22:00Z; 07:00 CEST = 05:00Z.
        ("Europe/Berlin", "2026-03-28 22:00", "2026-03-29 05:00", 7 * 3600, "2026-03-29"),
        // Europe/Berlin: 2026-10-25 03:00 CEST -> 02:00 CET. 23:00 CEST = 21:00Z; 07:00 CET = 06:00Z.
        ("Europe/Berlin", "2026-10-24 21:00", "2026-10-25 06:00", 9 * 3600, "2026-10-25"),
        // America/New_York: 2026-03-08 02:00 EST -> 03:00 EDT. 23:00 EST = 04:00Z; 07:00 EDT = 11:00Z.
        ("America/New_York", "2026-03-08 04:00", "2026-03-08 11:00", 7 * 3600, "2026-03-08"),
        // America/New_York: 2026-11-01 02:00 EDT -> 01:00 EST. 23:00 EDT = 03:00Z; 07:00 EST = 12:00Z.
        ("America/New_York", "2026-11-01 03:00", "2026-11-01 12:00", 9 * 3600, "2026-11-01"),
        // New York, waking 00:30 EDT on Nov 1 (04:30Z), before the change: wake day is Nov 1.
        ("America/New_York", "2026-10-31 21:30", "2026-11-01 04:30", 7 * 3600, "2026-11-01"),
        // New York, waking 23:30 EST on Nov 1 (04:30Z Nov 2): wake day is still Nov 1.
        ("America/New_York", "2026-11-01 20:30", "2026-11-02 04:30", 8 * 3600, "2026-11-01"),
    ]

    @Test("Nights across clock changes keep their real length and local wake day", arguments: clockChangeNights)
    func clockChangeNight(zone: String, start: String, end: String, asleep: Int64, wakeDay: String) throws {
        let samples = [
            SleepSample(source: "Watch", start: instant(start), end: instant(end), stage: .core)
        ]
        // Once as the user's zone, once as the samples' own HKTimeZone.
        let viaUserZone = try #require(build(samples, userZone: zone).nights.first)
        let zoned = samples.map {
            var copy = $0
            copy.timeZoneIdentifier = zone
            return copy
        }
        let viaSampleZone = try #require(build(zoned, userZone: nil).nights.first)
        for night in [viaUserZone, viaSampleZone] {
            #expect(night.asleepSeconds == asleep)
            #expect(night.wakeDay == LocalDate(wakeDay))
            #expect(night.timeZoneIdentifier == zone)
        }
    }

    @Test("A trip Los Angeles -> London: each night's day comes from its samples' own zone")
    func tripLosAngelesToLondon() throws {
        let samples = [
            // In Los Angeles: 23:00 PDT June 10 = 06:00Z June 11, 07:00 PDT = 14:00Z.
            SleepSample(
                source: "Watch", start: instant("2026-06-11 06:00"), end: instant("2026-06-11 14:00"),
                stage: .core, timeZoneIdentifier: "America/Los_Angeles", printedUTCOffset: 7200),
            // In London: 23:00 BST June 12 = 22:00Z, 07:00 BST June 13 = 06:00Z (23:00 June 12 in LA).
            SleepSample(
                source: "Watch", start: instant("2026-06-12 22:00"), end: instant("2026-06-13 06:00"),
                stage: .core, timeZoneIdentifier: "Europe/London", printedUTCOffset: 7200),
        ]
        let result = build(samples, userZone: "America/Los_Angeles")
        #expect(result.nights.count == 2)
        #expect(result.nights.map(\.timeZoneIdentifier) == ["America/Los_Angeles", "Europe/London"])
        #expect(
            result.nights.map(\.wakeDay) == [
                LocalDate(year: 2026, month: 6, day: 11), LocalDate(year: 2026, month: 6, day: 13),
            ])
    }

    @Test("A night spanning a flight takes the zone of the sample that ends it")
    func nightEndsInNewZone() throws {
        let samples = [
            SleepSample(
                source: "Watch", start: instant("2026-06-12 20:00"), end: instant("2026-06-12 23:00"),
                stage: .core, timeZoneIdentifier: "America/Los_Angeles"),
            SleepSample(
                source: "Watch", start: instant("2026-06-12 23:00"), end: instant("2026-06-13 04:00"),
                stage: .deep, timeZoneIdentifier: "Europe/London"),
        ]
        let night = try #require(build(samples, userZone: "America/Los_Angeles").nights.first)
        // 04:00Z is 05:00 BST on June 13 (but 21:00 PDT June 12).
        #expect(night.timeZoneIdentifier == "Europe/London")
        #expect(night.wakeDay == LocalDate(year: 2026, month: 6, day: 13))
        #expect(night.asleepSeconds == 8 * hour)
    }

    @Test("Samples differing only in zone give the same night zone in any input order")
    func zoneChoiceIndependentOfOrder() {
        let tokyo = SleepSample(
            source: "Watch", start: instant("2026-06-12 14:00"), end: instant("2026-06-12 21:00"), stage: .core,
            timeZoneIdentifier: "Asia/Tokyo")
        var london = tokyo
        london.timeZoneIdentifier = "Europe/London"
        let forward = build([tokyo, london]).nights
        let backward = build([london, tokyo]).nights
        #expect(forward == backward)
        #expect(forward.count == 1)
        // 21:00Z is 06:00 June 13 in Tokyo but 22:00 June 12 in London.
        #expect(forward.first?.timeZoneIdentifier == "Europe/London")
        #expect(forward.first?.wakeDay == LocalDate(year: 2026, month: 6, day: 12))
    }

    @Test("A nap's day is read in the zone of the sample that ends it")
    func napDayInItsOwnZone() throws {
        // 14:00-14:40 PDT June 12 = 21:00-21:40Z; in the user's Berlin zone that is 23:40.
        let nap = SleepSample(
            source: "Watch", start: instant("2026-06-12 21:00"), end: instant("2026-06-12 21:40"), stage: .core,
            timeZoneIdentifier: "America/Los_Angeles")
        let result = build([nap], userZone: "Europe/Berlin")
        let kept = try #require(result.naps.first)
        #expect(kept.wakeDay == LocalDate(year: 2026, month: 6, day: 12))
        #expect(kept.timeZoneIdentifier == "America/Los_Angeles")
        // 16:30-17:10 PDT = 23:30-00:10Z: June 12 in Los Angeles, June 13 in Berlin.
        let late = SleepSample(
            source: "Watch", start: instant("2026-06-12 23:30"), end: instant("2026-06-13 00:10"), stage: .core,
            timeZoneIdentifier: "America/Los_Angeles")
        #expect(
            build([late], userZone: "Europe/Berlin").naps.first?.wakeDay == LocalDate(year: 2026, month: 6, day: 12))
        var unzoned = late
        unzoned.timeZoneIdentifier = nil
        #expect(
            build([unzoned], userZone: "Europe/Berlin").naps.first?.wakeDay == LocalDate(year: 2026, month: 6, day: 13))
    }

    @Test("Zone order: valid HKTimeZone, else the user's zone, else the printed offset, else UTC")
    func resolutionOrder() {
        var resolver = SampleZoneResolver(userTimeZoneIdentifier: "Europe/Berlin")
        let own = resolver.zone(sampleTimeZoneIdentifier: "Asia/Tokyo", printedUTCOffset: 7200)
        #expect(own.identifier == "Asia/Tokyo")
        #expect(own.origin == .sampleTimeZone)
        let invalid = resolver.zone(sampleTimeZoneIdentifier: "Mars/Olympus_Mons", printedUTCOffset: 7200)
        #expect(invalid.identifier == "Europe/Berlin")
        #expect(invalid.origin == .userTimeZone)
        let none = resolver.zone(sampleTimeZoneIdentifier: nil, printedUTCOffset: 7200)
        #expect(none.origin == .userTimeZone)

        var noUser = SampleZoneResolver(userTimeZoneIdentifier: "Not/A_Zone")
        #expect(noUser.userZone == nil)
        let printed = noUser.zone(sampleTimeZoneIdentifier: nil, printedUTCOffset: -(5 * 3600 + 30 * 60))
        #expect(printed.identifier == "GMT-05:30")
        #expect(printed.origin == .printedOffset)
        #expect(printed.timeZone.secondsFromGMT() == -(5 * 3600 + 30 * 60))
        let nothing = noUser.zone(sampleTimeZoneIdentifier: "", printedUTCOffset: nil)
        #expect(nothing.identifier == "UTC")
        #expect(nothing.origin == .utcFallback)
    }

    @Test("A January record printed with +02:00 and no zone uses the user's zone, not the offset")
    func printedOffsetDoesNotDecideTheDay() throws {
        // 22:30Z Jan 14 to 05:30Z Jan 15. In Berlin (+01:00) the wake is 06:30 Jan 15.
        let januarySleep = SleepSample(
            source: "Garmin", start: instant("2026-01-14 22:30"), end: instant("2026-01-15 05:30"),
            stage: .asleepUnspecified, printedUTCOffset: 7200)
        let night = try #require(build([januarySleep], userZone: "Europe/Berlin").nights.first)
        #expect(night.timeZoneIdentifier == "Europe/Berlin")
        // Without any configured zone the printed offset is the last resort.
        let fallback = try #require(build([januarySleep], userZone: nil).nights.first)
        #expect(fallback.timeZoneIdentifier == "GMT+02:00")
        #expect(fallback.wakeDay == LocalDate(year: 2026, month: 1, day: 15))
        // A wake at 23:00Z is 00:00 the next day at +01:00, but 23:00 at UTC.
        let late = SleepSample(
            source: "Garmin", start: instant("2026-01-14 16:00"), end: instant("2026-01-14 23:00"),
            stage: .asleepUnspecified, printedUTCOffset: 3600)
        #expect(build([late], userZone: nil).nights.first?.wakeDay == LocalDate(year: 2026, month: 1, day: 15))
        #expect(build([late], userZone: "UTC").nights.first?.wakeDay == LocalDate(year: 2026, month: 1, day: 14))
    }

    @Test("LocalTime computes local dates and clock times from offsets")
    func localTimeHelpers() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 2026-03-29 00:30Z is 01:30 CET; 01:30Z is 03:30 CEST.
        #expect(
            LocalTime.localDate(of: instant("2026-03-29 00:30"), in: berlin) == LocalDate(year: 2026, month: 3, day: 29)
        )
        #expect(LocalTime.secondsSinceLocalMidnight(of: instant("2026-03-29 00:30"), in: berlin) == 5_400)
        #expect(LocalTime.secondsSinceLocalMidnight(of: instant("2026-03-29 01:30"), in: berlin) == 12_600)
        // Before 1970: 1969-12-31 23:00Z is 1970-01-01 00:00 in Berlin.
        #expect(LocalTime.localDate(of: -3_600, in: berlin) == LocalDate(year: 1970, month: 1, day: 1))
        let losAngeles = try #require(TimeZone(identifier: "America/Los_Angeles"))
        #expect(LocalTime.localDate(of: 3_600, in: losAngeles) == LocalDate(year: 1969, month: 12, day: 31))
        #expect(LocalTime.secondsSinceLocalMidnight(of: 3_600, in: losAngeles) == 61_200)
        #expect(LocalTime.fixedOffsetIdentifier(secondsFromGMT: 0) == "GMT+00:00")
        #expect(LocalTime.fixedOffsetIdentifier(secondsFromGMT: 20_700) == "GMT+05:45")
        #expect(LocalTime.timeZone(identifier: "GMT+05:45")?.secondsFromGMT() == 20_700)
        #expect(LocalTime.timeZone(identifier: "GMT-05:30")?.secondsFromGMT() == -19_800)
        #expect(LocalTime.timeZone(identifier: "No/Such_Zone") == nil)
    }
}
