import SleepCore
import Testing

/// The pressure curve's worked example (docs/sleep-rules.md, "Sleep pressure today";
/// expected values computed independently) and its rules.
@Suite("Sleep pressure today")
struct SleepPressureTests {
    /// Nights 23:00-07:00 UTC waking 2026-03-02 ... 2026-03-06.
    static let nights = PersonalTestNights.consecutive(from: "2026-03-02", asleepHours: [8, 8, 8, 8, 8])
    /// MSFsc 03:00.
    static let chronotype = Chronotype(
        msfscSeconds: 3 * 3600, msfSeconds: 3 * 3600, reason: nil, freeNights: 4, workNights: 10,
        clockShiftNights: 0)
    static let noon = instant("2026-03-05 12:00")

    static func curve(now: Int64 = noon) throws -> SleepPressureCurve {
        try #require(
            SleepPressureCurve.curve(
                day: wakeDate("2026-03-05"), timeZoneIdentifier: "UTC", now: now, nights: nights,
                chronotype: chronotype, needSeconds: 8 * 3600))
    }

    static func point(_ curve: SleepPressureCurve, hour: Int64) throws -> SleepPressureCurve.Point {
        try #require(curve.points.first { $0.elapsedSeconds == hour * 3600 })
    }

    @Test("sleeping 23:00-07:00 with MSFsc 03:00: S 0.0928 at 07:00, 0.3107 at noon, 0.6234 at 23:00")
    func workedExample() throws {
        let curve = try Self.curve()
        let morning = try Self.point(curve, hour: 7)
        let noon = try Self.point(curve, hour: 12)
        let afternoon = try Self.point(curve, hour: 16)
        let late = try Self.point(curve, hour: 23)
        #expect(abs(morning.homeostatic - 0.0928) < 0.00005)
        #expect(abs(noon.homeostatic - 0.3107) < 0.00005)
        #expect(abs(late.homeostatic - 0.6234) < 0.00005)
        #expect(abs(late.circadian - 0.05) < 0.00005)
        #expect(abs(late.pressure - 0.6734) < 0.00005)
        #expect(abs(afternoon.circadian - -0.0966) < 0.00005)
        #expect(late.isProjected && !noon.isProjected)
    }

    @Test("97 points every 15 minutes from midnight to midnight; the evening window is 22:00-23:00")
    func shape() throws {
        let curve = try Self.curve()
        #expect(curve.points.count == 97)
        #expect(curve.points.first?.instant == instant("2026-03-05 00:00"))
        #expect(curve.points.last?.instant == instant("2026-03-06 00:00"))
        #expect(curve.eveningWindowStartSeconds == 22 * 3600 && curve.eveningWindowEndSeconds == 23 * 3600)
    }

    @Test("a 23-hour day in Europe/Berlin has 93 points")
    func shortDay() throws {
        let curve = try #require(
            SleepPressureCurve.curve(
                day: wakeDate("2026-03-29"), timeZoneIdentifier: "Europe/Berlin", now: instant("2026-03-29 12:00"),
                nights: [], chronotype: Self.chronotype, needSeconds: 8 * 3600))
        #expect(curve.points.count == 93)
        #expect(curve.points.first?.instant == instant("2026-03-29 00:00", "Europe/Berlin"))
    }

    @Test("no MSFsc, no curve")
    func noChronotype() {
        let undefined = Chronotype(
            msfscSeconds: nil, msfSeconds: nil, reason: .tooFewNights, freeNights: 1, workNights: 1, clockShiftNights: 0
        )
        #expect(
            SleepPressureCurve.curve(
                day: wakeDate("2026-03-05"), timeZoneIdentifier: "UTC", now: Self.noon, nights: Self.nights,
                chronotype: undefined, needSeconds: 8 * 3600) == nil)
    }

    @Test("sleep after now is not read: the person is taken to stay awake")
    func projection() throws {
        let early = try Self.curve(now: instant("2026-03-05 03:00"))
        let point = try Self.point(early, hour: 6)
        let three = try Self.point(early, hour: 3)
        #expect(point.isProjected)
        // Awake from 03:00 instead of asleep to 07:00: pressure rises instead of falling.
        #expect(point.homeostatic > three.homeostatic)
    }

    @Test("property: S stays in 0...1 and pressure is S + C", arguments: [0, 1, 2, 3])
    func bounds(seed: UInt64) throws {
        var random = TestRandom(seed: seed)
        let hours = (0..<6).map { _ in 3 + random.unit() * 10 }
        let nights = PersonalTestNights.consecutive(from: "2026-03-01", asleepHours: hours, bedtime: "21:00")
        let curve = try #require(
            SleepPressureCurve.curve(
                day: wakeDate("2026-03-06"), timeZoneIdentifier: "UTC", now: instant("2026-03-06 20:00"),
                nights: nights,
                chronotype: Self.chronotype, needSeconds: 8 * 3600))
        for point in curve.points {
            #expect(point.homeostatic >= 0 && point.homeostatic <= 1)
            #expect(abs(point.pressure - point.homeostatic - point.circadian) < 1e-12)
        }
    }
}
