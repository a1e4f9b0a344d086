import Foundation

/// A person's own sleep need estimated from their nights (docs/sleep-rules.md, "Own sleep
/// need"): Kitamura et al.'s recovery-run fit, else the trimmed mean of free nights, else
/// the prior, shrunk toward the prior 8.16 h, with an 80 % interval and what it was found
/// from.
public struct SleepNeedEstimate: Sendable, Hashable, Codable {
    /// How the estimate was found.
    public enum Method: String, Sendable, Hashable, Codable, CaseIterable {
        /// Too few nights: the prior alone.
        case prior
        /// The trimmed mean of free nights, shrunk toward the prior.
        case freeNights = "free_nights"
        /// The exponential fit on runs of consecutive free nights, shrunk toward the prior.
        case recoveryRun = "recovery_run"
    }

    /// The estimated need, seconds.
    public var needSeconds: Int64
    /// Lower bound of the 80 % interval, seconds.
    public var lowSeconds: Int64
    /// Upper bound of the 80 % interval, seconds.
    public var highSeconds: Int64
    /// How it was found.
    public var method: Method
    /// The nights the data estimate was built from (0 for the prior).
    public var nightsUsed: Int
    /// The data estimate's weight in effective nights (0 for the prior).
    public var effectiveNights: Double
    /// Free nights in the window.
    public var freeNights: Int
    /// Work nights in the window.
    public var workNights: Int
    /// Mean asleep time of the window's work nights, seconds; absent without one.
    public var habitualSeconds: Int64?
    /// need - habitual (Kitamura's potential sleep debt), seconds; absent without habitual.
    public var hiddenDebtSeconds: Int64?

    /// Creates a value.
    public init(
        needSeconds: Int64, lowSeconds: Int64, highSeconds: Int64, method: Method, nightsUsed: Int,
        effectiveNights: Double, freeNights: Int, workNights: Int, habitualSeconds: Int64?, hiddenDebtSeconds: Int64?
    ) {
        self.needSeconds = needSeconds
        self.lowSeconds = lowSeconds
        self.highSeconds = highSeconds
        self.method = method
        self.nightsUsed = nightsUsed
        self.effectiveNights = effectiveNights
        self.freeNights = freeNights
        self.workNights = workNights
        self.habitualSeconds = habitualSeconds
        self.hiddenDebtSeconds = hiddenDebtSeconds
    }

    /// Whether there were too few nights for data to count (the prior alone).
    public var hasTooFewNights: Bool { method == .prior }

    /// Why the data were too few, in a plain sentence; `nil` when they were enough.
    public var tooFewNightsReason: String? {
        guard method == .prior else { return nil }
        return "\(freeNights) free night\(freeNights == 1 ? "" : "s") in the window: "
            + "fewer than 4 and no run of 3 consecutive free nights"
    }

    /// Estimates the need as of `asOf` from the nights waking in the rules' window ending
    /// on that day.
    public static func estimate(
        nights: [Night], asOf: LocalDate, workDays: WorkDays = .mondayToFriday, rules: PersonalSleepRules = .standard
    ) -> SleepNeedEstimate {
        let schedule = NightSchedule(nights, workDays: workDays)
        return estimate(schedule.window(days: rules.needWindowDays, endingOn: asOf), rules: rules)
    }

    /// The need each night would be measured against with "debt against need": for every
    /// night (in wake-day order), the estimate from the window ending the day before its
    /// wake day, so no night sees itself or a later one.
    public static func estimatesBefore(
        nights: [Night], workDays: WorkDays = .mondayToFriday, rules: PersonalSleepRules = .standard
    ) -> [(wakeDay: LocalDate, estimate: SleepNeedEstimate)] {
        let schedule = NightSchedule(nights, workDays: workDays)
        return schedule.nights.map { item in
            let before = item.night.wakeDay.adding(days: -1)
            return (
                item.night.wakeDay,
                estimate(schedule.window(days: rules.needWindowDays, endingOn: before), rules: rules)
            )
        }
    }

    static func estimate(_ window: ArraySlice<ScheduledNight>, rules: PersonalSleepRules) -> SleepNeedEstimate {
        let free = NightSchedule.freeFlags(window, rules: rules)
        var freeNights: [ScheduledNight] = []
        var workAsleep: [Int64] = []
        for (item, isFree) in zip(window, free) {
            if isFree { freeNights.append(item) } else { workAsleep.append(item.night.asleepSeconds) }
        }
        let habitual = workAsleep.isEmpty ? nil : Double(workAsleep.reduce(0, +)) / Double(workAsleep.count)

        let data: DataEstimate?
        let runs = recoveryRuns(freeNights, minimum: rules.minimumRunNights)
        if !runs.isEmpty {
            data = fit(runs, tauDays: rules.recoveryTauDays)
        } else if freeNights.count >= rules.minimumFreeNights {
            data = trimmedMean(freeNights.map { Double($0.night.asleepSeconds) }, rules: rules)
        } else {
            data = nil
        }

        let center: Double
        let half: Double
        if let data {
            let sigma = max(data.spread, rules.nightNoiseFloorSeconds)
            let priorWeight = (sigma / rules.priorSpreadSeconds) * (sigma / rules.priorSpreadSeconds)
            center = (priorWeight * rules.priorNeedSeconds + data.weight * data.value) / (priorWeight + data.weight)
            half =
                StudentT.quantile90(degreesOfFreedom: data.degreesOfFreedom)
                * (sigma * sigma / (priorWeight + data.weight) + data.allowance * data.allowance).squareRoot()
        } else {
            center = rules.priorNeedSeconds
            half = 1.2816 * rules.priorSpreadSeconds
        }
        let need = clampedSeconds(center, rules.needRange)
        let method: Method = data == nil ? .prior : (runs.isEmpty ? .freeNights : .recoveryRun)
        return SleepNeedEstimate(
            needSeconds: need, lowSeconds: clampedSeconds(center - half, rules.needRange),
            highSeconds: clampedSeconds(center + half, rules.needRange), method: method,
            nightsUsed: data?.nights ?? 0, effectiveNights: data?.weight ?? 0, freeNights: freeNights.count,
            workNights: workAsleep.count, habitualSeconds: habitual.map { Int64($0.rounded()) },
            hiddenDebtSeconds: habitual.map { need - Int64($0.rounded()) })
    }

    /// A data estimate with its weight in effective nights, residual spread and degrees of
    /// freedom, the nights it used and the systematic allowance of its interval.
    struct DataEstimate {
        var value: Double
        var weight: Double
        var spread: Double
        var degreesOfFreedom: Int
        var nights: Int
        var allowance: Double
    }

    /// Maximal runs of free nights on consecutive wake days, of at least `minimum` nights,
    /// as their asleep seconds.
    static func recoveryRuns(_ free: [ScheduledNight], minimum: Int) -> [[Double]] {
        var runs: [[Double]] = []
        var current: [Double] = []
        var lastDay: Int?
        for item in free {
            if let lastDay, item.dayNumber == lastDay + 1 {
                current.append(Double(item.night.asleepSeconds))
            } else if let lastDay, item.dayNumber == lastDay {
                continue  // a second night on one wake day does not lengthen the run
            } else {
                if current.count >= max(1, minimum) { runs.append(current) }
                current = [Double(item.night.asleepSeconds)]
            }
            lastDay = item.dayNumber
        }
        if current.count >= max(1, minimum) { runs.append(current) }
        return runs
    }

    /// The least-squares asymptote of `TST(d) = OSD + A_r exp(-(d - 1) / tau)` shared by
    /// all runs, each run's amplitude profiled out.
    static func fit(_ runs: [[Double]], tauDays: Double) -> DataEstimate {
        var numerator = 0.0
        var denominator = 0.0
        var nights = 0
        let decay = runs.map { run in run.indices.map { exp(-Double($0) / tauDays) } }
        for (run, e) in zip(runs, decay) {
            let sumE = e.reduce(0, +)
            let sumEE = e.reduce(0) { $0 + $1 * $1 }
            let sumEY = zip(e, run).reduce(0) { $0 + $1.0 * $1.1 }
            numerator += run.reduce(0, +) - sumE * sumEY / sumEE
            denominator += Double(run.count) - sumE * sumE / sumEE
            nights += run.count
        }
        let asymptote = numerator / denominator
        var squares = 0.0
        for (run, e) in zip(runs, decay) {
            let sumEE = e.reduce(0) { $0 + $1 * $1 }
            let amplitude = zip(e, run).reduce(0) { $0 + $1.0 * ($1.1 - asymptote) } / sumEE
            for (ed, y) in zip(e, run) {
                let residual = y - asymptote - amplitude * ed
                squares += residual * residual
            }
        }
        let dof = nights - 1 - runs.count
        return DataEstimate(
            value: asymptote, weight: denominator, spread: dof > 0 ? (squares / Double(dof)).squareRoot() : 0,
            degreesOfFreedom: dof, nights: nights, allowance: 0)
    }

    /// The trimmed mean of free nights with its sample standard deviation and the
    /// catch-up allowance.
    static func trimmedMean(_ values: [Double], rules: PersonalSleepRules) -> DataEstimate {
        let sorted = values.sorted()
        let cut = Int((Double(sorted.count) * rules.trimmedShare).rounded(.down))
        let kept = Array(sorted[cut..<(sorted.count - cut)])
        let mean = kept.reduce(0, +) / Double(kept.count)
        let squares = kept.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let spread = kept.count > 1 ? (squares / Double(kept.count - 1)).squareRoot() : 0
        return DataEstimate(
            value: mean, weight: Double(kept.count), spread: spread, degreesOfFreedom: kept.count - 1,
            nights: kept.count, allowance: rules.catchUpAllowanceSeconds)
    }

    static func clampedSeconds(_ value: Double, _ range: ClosedRange<Int64>) -> Int64 {
        let clamped = min(max(value, Double(range.lowerBound)), Double(range.upperBound))
        return Int64(clamped.rounded(.toNearestOrAwayFromZero))
    }

    enum CodingKeys: String, CodingKey {
        case needSeconds = "need_seconds"
        case lowSeconds = "low_seconds"
        case highSeconds = "high_seconds"
        case method
        case nightsUsed = "nights_used"
        case effectiveNights = "effective_nights"
        case freeNights = "free_nights"
        case workNights = "work_nights"
        case habitualSeconds = "habitual_seconds"
        case hiddenDebtSeconds = "hidden_debt_seconds"
    }
}
