/// Chronotype as mid-sleep on free days corrected for sleep debt (MSFsc; Roenneberg et al.
/// 2004, the MCTQ's correction; docs/sleep-rules.md, "Chronotype"), or why it is
/// undefined.
public struct Chronotype: Sendable, Hashable, Codable {
    /// Why MSFsc is undefined.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// Fewer than 4 free or 10 work nights in the window.
        case tooFewNights = "too_few_nights"
        /// Free-night wakes within 15 min of work-night wakes.
        case alarmDrivenFreeDays = "alarm_driven_free_days"
    }

    /// MSFsc, seconds after local midnight (0 ..< 86,400); `nil` when undefined.
    public var msfscSeconds: Int64?
    /// MSF before the correction, seconds after local midnight; `nil` when undefined.
    public var msfSeconds: Int64?
    /// Why it is undefined; `nil` when defined.
    public var reason: Reason?
    /// Free nights in the window (clock-shift nights left out).
    public var freeNights: Int
    /// Work nights in the window (clock-shift nights left out).
    public var workNights: Int
    /// Clock-shift nights (travel, daylight-saving changes) left out.
    public var clockShiftNights: Int

    /// Creates a value.
    public init(
        msfscSeconds: Int64?, msfSeconds: Int64?, reason: Reason?, freeNights: Int, workNights: Int,
        clockShiftNights: Int
    ) {
        self.msfscSeconds = msfscSeconds
        self.msfSeconds = msfSeconds
        self.reason = reason
        self.freeNights = freeNights
        self.workNights = workNights
        self.clockShiftNights = clockShiftNights
    }

    /// A plain sentence saying why MSFsc is undefined; `nil` when it is defined.
    public var undefinedReason: String? {
        switch reason {
        case nil: return nil
        case .tooFewNights?:
            return "\(freeNights) free and \(workNights) work nights in the last 42 days: "
                + "at least 4 free and 10 work nights are needed"
        case .alarmDrivenFreeDays?:
            return "free days wake within 15 minutes of work days, as if by an alarm"
        }
    }

    /// Chronotype as of `asOf` from the nights waking in the rules' window ending on it.
    public static func estimate(
        nights: [Night], asOf: LocalDate, workDays: WorkDays = .mondayToFriday, rules: PersonalSleepRules = .standard
    ) -> Chronotype {
        let schedule = NightSchedule(nights, workDays: workDays)
        let all = schedule.window(days: rules.chronotypeWindowDays, endingOn: asOf)
        let window = all.filter { !$0.isClockShift }
        let shifted = all.count - window.count
        let free = NightSchedule.freeFlags(window[...], rules: rules)
        var freeNights: [ScheduledNight] = []
        var workNights: [ScheduledNight] = []
        for (item, isFree) in zip(window, free) {
            if isFree { freeNights.append(item) } else { workNights.append(item) }
        }
        func undefined(_ reason: Reason) -> Chronotype {
            Chronotype(
                msfscSeconds: nil, msfSeconds: nil, reason: reason, freeNights: freeNights.count,
                workNights: workNights.count, clockShiftNights: shifted)
        }
        guard freeNights.count >= rules.minimumChronotypeFreeNights,
            workNights.count >= rules.minimumChronotypeWorkNights
        else { return undefined(.tooFewNights) }
        let freeWake = MidSleepJetLag.circularMean(freeNights.map(\.wakeClockSeconds))
        let workWake = MidSleepJetLag.circularMean(workNights.map(\.wakeClockSeconds))
        guard NightSchedule.clockDistance(freeWake, workWake) >= rules.alarmWakeToleranceSeconds else {
            return undefined(.alarmDrivenFreeDays)
        }
        func meanDuration(_ items: [ScheduledNight]) -> Double {
            Double(items.reduce(Int64(0)) { $0 + ($1.night.wake - $1.night.onset) }) / Double(items.count)
        }
        let freeDuration = meanDuration(freeNights)
        let workDuration = meanDuration(workNights)
        let workDayCount = Double(workDays.count)
        let weekDuration = (workDayCount * workDuration + (7 - workDayCount) * freeDuration) / 7
        let msf = MidSleepJetLag.circularMean(freeNights.map(\.midSleepClockSeconds))
        let corrected = freeDuration > workDuration ? msf - (freeDuration - weekDuration) / 2 : msf
        return Chronotype(
            msfscSeconds: clockSeconds(corrected), msfSeconds: clockSeconds(msf), reason: nil,
            freeNights: freeNights.count, workNights: workNights.count, clockShiftNights: shifted)
    }

    /// A clock time rounded to a whole second and taken modulo 24 h.
    static func clockSeconds(_ value: Double) -> Int64 {
        MetricZoneClock.floorModulo(Int64(value.rounded(.toNearestOrAwayFromZero)), 86_400)
    }

    enum CodingKeys: String, CodingKey {
        case msfscSeconds = "msfsc_seconds"
        case msfSeconds = "msf_seconds"
        case reason
        case freeNights = "free_nights"
        case workNights = "work_nights"
        case clockShiftNights = "clock_shift_nights"
    }
}
