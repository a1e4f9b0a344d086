public import SleepCore

/// The plain sentences every front end shows for the personal measures of issue 24: the
/// need with its interval and how it was found, chronotype with its night counts (or why
/// it is undefined), and the confidence of a window's nights.
public enum PersonalText {
    /// "8h 2m a night (80 %: 7h 25m to 8h 39m), from a recovery run of 5 free nights".
    public static func need(_ need: SleepNeedEstimate) -> String {
        let interval =
            "\(ReportFormat.hours(need.needSeconds)) a night (80 %: \(ReportFormat.hours(need.lowSeconds)) to "
            + "\(ReportFormat.hours(need.highSeconds)))"
        switch need.method {
        case .recoveryRun:
            return interval + ", from a recovery run of \(need.nightsUsed) free nights"
        case .freeNights:
            return interval + ", from the trimmed mean of \(need.nightsUsed) free nights"
        case .prior:
            return interval + ", the population's need (too few nights: \(need.tooFewNightsReason ?? ""))"
        }
    }

    /// "mid-sleep on free days 04:17, corrected for oversleep (4 free and 10 work nights)",
    /// or "undefined: <why>".
    public static func chronotype(_ chronotype: Chronotype) -> String {
        guard let msfsc = chronotype.msfscSeconds else { return "undefined: \(chronotype.undefinedReason ?? "")" }
        return "mid-sleep on free days \(clock(msfsc)), corrected for oversleep "
            + "(\(chronotype.freeNights) free and \(chronotype.workNights) work nights)"
    }

    /// "0.93 on average over 7 nights, 0 low", with "; small sample (fewer than 7 nights)"
    /// when it is one; "no night of this window has one yet" without nights.
    public static func confidence(_ summary: ConfidenceSummary, rules: PersonalSleepRules = .standard) -> String {
        guard let mean = summary.meanConfidence else { return "no night of this window has one yet" }
        var text = "\(decimal(mean)) on average over \(ReportFormat.nights(summary.nights)), \(summary.lowNights) low"
        if summary.isSmallSample { text += "; small sample (fewer than \(rules.smallSampleNights) nights)" }
        return text
    }

    /// A confidence value with two decimals, as "0.93".
    public static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    /// A clock time (seconds after midnight) as "HH:MM".
    public static func clock(_ seconds: Int64) -> String {
        let minutes = Int((seconds % 86_400) / 60)
        let hours = minutes / 60
        let rest = minutes % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }
}
