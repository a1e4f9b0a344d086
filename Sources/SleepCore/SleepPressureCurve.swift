import Foundation

/// Today's relative sleep pressure (docs/sleep-rules.md, "Sleep pressure today"):
/// Borbély's process S from the stored sleep/wake timeline plus a single 24-hour sinusoid
/// (process C) phased by the person's MSFsc, every 15 minutes of one local day. A relative
/// curve to draw, never a prediction of performance; it depends on the clock (`now`), so
/// it is computed on request and never stored.
public struct SleepPressureCurve: Sendable, Hashable, Codable {
    /// One point of the curve.
    public struct Point: Sendable, Hashable, Codable {
        /// The instant, epoch seconds.
        public var instant: Int64
        /// Seconds since the day's local midnight (elapsed, so 23 h and 25 h days end at
        /// 82,800 and 90,000).
        public var elapsedSeconds: Int64
        /// Process S, 0...1.
        public var homeostatic: Double
        /// Process C, -amplitude ... +amplitude.
        public var circadian: Double
        /// S + C.
        public var pressure: Double
        /// Whether the point lies after `now` (the person taken to stay awake).
        public var isProjected: Bool

        enum CodingKeys: String, CodingKey {
            case instant
            case elapsedSeconds = "elapsed_seconds"
            case homeostatic
            case circadian
            case pressure
            case isProjected = "projected"
        }
    }

    /// The local day drawn.
    public var day: LocalDate
    /// The zone the day is read in.
    public var timeZoneIdentifier: String
    /// The MSFsc phasing process C, seconds after local midnight.
    public var msfscSeconds: Int64
    /// The points, from the day's local midnight to the next, inclusive.
    public var points: [Point]
    /// Start of the evening window, local clock seconds after midnight (0 ..< 86,400).
    public var eveningWindowStartSeconds: Int64
    /// End of the evening window, local clock seconds after midnight.
    public var eveningWindowEndSeconds: Int64

    /// The curve of `day` in `timeZoneIdentifier` at `now` from `nights`; `nil` without
    /// MSFsc (there is no curve without a circadian phase). `needSeconds` places the
    /// evening window.
    public static func curve(
        day: LocalDate, timeZoneIdentifier: String, now: Int64, nights: [Night], chronotype: Chronotype,
        needSeconds: Int64, rules: PersonalSleepRules = .standard
    ) -> SleepPressureCurve? {
        guard let msfsc = chronotype.msfscSeconds else { return nil }
        var clock = MetricZoneClock()
        let midnight = localMidnight(day, zone: timeZoneIdentifier, clock: &clock)
        let nextMidnight = localMidnight(day.adding(days: 1), zone: timeZoneIdentifier, clock: &clock)
        let start = midnight - rules.pressureHistorySeconds
        var sleep: [TimeSpan] = []
        for night in nights where night.wake > start && night.onset < nextMidnight {
            sleep.append(contentsOf: night.asleepIntervals)
        }
        sleep.sort { $0.start < $1.start }

        var homeostatic = rules.pressureStartValue
        var time = start
        var sleepIndex = 0
        /// Advances S from `time` to `target`: asleep inside recorded intervals before
        /// `now`, awake otherwise.
        func advance(to target: Int64) {
            while time < target {
                while sleepIndex < sleep.count, sleep[sleepIndex].end <= time { sleepIndex += 1 }
                var next = target
                var asleep = false
                if sleepIndex < sleep.count, time < now {
                    let span = sleep[sleepIndex]
                    if span.start <= time {
                        asleep = true
                        next = min(next, span.end, now)
                    } else {
                        next = min(next, span.start)
                    }
                }
                let elapsed = Double(next - time)
                if asleep {
                    homeostatic *= exp(-elapsed / rules.sleepDecaySeconds)
                } else {
                    homeostatic = 1 - (1 - homeostatic) * exp(-elapsed / rules.wakeRiseSeconds)
                }
                time = next
            }
        }
        var points: [Point] = []
        let step = max(60, rules.pressureStepSeconds)
        var instant = midnight
        while true {
            advance(to: instant)
            let local = MetricZoneClock.floorModulo(clock.localSeconds(zone: timeZoneIdentifier, at: instant), 86_400)
            let circadian =
                rules.circadianAmplitude * cos(2 * Double.pi * Double(local - msfsc) / 86_400)
            points.append(
                Point(
                    instant: instant, elapsedSeconds: instant - midnight, homeostatic: homeostatic,
                    circadian: circadian, pressure: homeostatic + circadian, isProjected: instant > now))
            if instant >= nextMidnight { break }
            instant = min(instant + step, nextMidnight)
        }
        let bedtime = MetricZoneClock.floorModulo(msfsc - needSeconds / 2, 86_400)
        return SleepPressureCurve(
            day: day, timeZoneIdentifier: timeZoneIdentifier, msfscSeconds: msfsc, points: points,
            eveningWindowStartSeconds: MetricZoneClock.floorModulo(bedtime - rules.eveningWindowSeconds, 86_400),
            eveningWindowEndSeconds: bedtime)
    }

    /// The instant of `day`'s local midnight in `zone` (the first instant whose local date
    /// is `day`, to the second, when a change skips midnight).
    static func localMidnight(_ day: LocalDate, zone: String, clock: inout MetricZoneClock) -> Int64 {
        let wall = Int64(day.daysSinceEpoch) * 86_400
        var instant = wall - clock.offset(zone: zone, at: wall)
        instant = wall - clock.offset(zone: zone, at: instant)
        // A change at midnight can leave the guess inside the day before or skip back.
        if clock.localSeconds(zone: zone, at: instant) < wall {
            instant = wall - clock.offset(zone: zone, at: instant + 86_400 / 2)
        }
        return instant
    }

    enum CodingKeys: String, CodingKey {
        case day
        case timeZoneIdentifier = "time_zone"
        case msfscSeconds = "msfsc_seconds"
        case points
        case eveningWindowStartSeconds = "evening_window_start_seconds"
        case eveningWindowEndSeconds = "evening_window_end_seconds"
    }
}
