import Foundation

/// Mid-sleep social jet lag (spec section 7, beyond the seeds): the shorter distance on
/// the 24 h clock between the circular mean of local mid-sleep times of free days (nights
/// waking on Saturday or Sunday) and that of work days. Present only when both groups
/// have a night.
public struct MidSleepJetLag: Sendable, Hashable, Codable {
    /// Circular mean local mid-sleep of free days, seconds after local midnight
    /// (0..<86,400), rounded to a whole second.
    public var freeDayMidSleepSeconds: Int64
    /// Circular mean local mid-sleep of work days, seconds after local midnight.
    public var workDayMidSleepSeconds: Int64
    /// Shorter clock distance between the two unrounded means, hours, 0...12.
    public var differenceHours: Double
    /// Nights waking on Saturday or Sunday.
    public var freeDayNights: Int
    /// The other nights.
    public var workDayNights: Int

    /// Creates a value.
    public init(
        freeDayMidSleepSeconds: Int64, workDayMidSleepSeconds: Int64, differenceHours: Double,
        freeDayNights: Int, workDayNights: Int
    ) {
        self.freeDayMidSleepSeconds = freeDayMidSleepSeconds
        self.workDayMidSleepSeconds = workDayMidSleepSeconds
        self.differenceHours = differenceHours
        self.freeDayNights = freeDayNights
        self.workDayNights = workDayNights
    }

    /// Computes the jet lag of `nights`; mid-sleep is the midpoint instant of onset and
    /// wake, read in the night's own zone. `nil` unless both groups have a night.
    public init?(nights: [Night]) {
        self.init(timeline: MetricTimeline(nights).nights[...])
    }

    init?(timeline nights: ArraySlice<MetricNight>) {
        var free: [Int64] = []
        var work: [Int64] = []
        for item in nights {
            if item.isFreeDay {
                free.append(item.midSleepClockSeconds)
            } else {
                work.append(item.midSleepClockSeconds)
            }
        }
        guard !free.isEmpty, !work.isEmpty else { return nil }
        let freeMean = MidSleepJetLag.circularMean(free)
        let workMean = MidSleepJetLag.circularMean(work)
        var distance = abs(freeMean - workMean).truncatingRemainder(dividingBy: 86_400)
        distance = min(distance, 86_400 - distance)
        self.init(
            freeDayMidSleepSeconds: Int64(freeMean.rounded()) % 86_400,
            workDayMidSleepSeconds: Int64(workMean.rounded()) % 86_400,
            differenceHours: distance / 3600, freeDayNights: free.count, workDayNights: work.count)
    }

    /// Circular mean of clock times (seconds after midnight) as angles on the 24 h clock,
    /// in 0..<86,400. Opposite times that cancel exactly give the angle atan2(0, 0) = 0.
    static func circularMean(_ seconds: [Int64]) -> Double {
        var x = 0.0
        var y = 0.0
        for s in seconds {
            let angle = Double(s) / 86_400 * 2 * Double.pi
            x += cos(angle)
            y += sin(angle)
        }
        var mean = atan2(y, x) / (2 * Double.pi) * 86_400
        if mean < 0 { mean += 86_400 }
        if mean >= 86_400 { mean -= 86_400 }
        return mean
    }

    enum CodingKeys: String, CodingKey {
        case freeDayMidSleepSeconds = "free_day_mid_sleep_seconds"
        case workDayMidSleepSeconds = "work_day_mid_sleep_seconds"
        case differenceHours = "difference_hours"
        case freeDayNights = "free_day_nights"
        case workDayNights = "work_day_nights"
    }
}
