import CLICommon
import LedgerReadServices
import LedgerStore
import SleepCore
import SleepReports

/// `sleepledger-admin summary HANDLE [--horizon H] [--as-of DATE] [--format text|json]`:
/// the dashboard of one user, debt headline first.
struct AdminSummaryCommand: AdminCommand {
    static let usage = """
        Usage: sleepledger-admin summary HANDLE [--horizon daily|weekly|monthly|yearly|5y|10y]
                                        [--as-of YYYY-MM-DD] [--format text|json]

        The user's dashboard: sleep debt against the target (nightly average, severity,
        rolling 14-night debt and recovery projection), sleep score with its components,
        last night with its stage bar, the week's quick stats, trend, triggered patterns
        and the debt series as a bar chart. Default horizon: weekly. Without --as-of it
        shows what the last rollup stored; with it, computes that day from the stored nights.
        JSON is the Summary of docs/summary-json.md.
        """
    static let options: Set<String> = ["horizon", "as-of", "format"]
    static let flags: Set<String> = []

    let handle: String
    let horizon: Horizon
    let asOf: LocalDate?
    let format: OutputFormat

    init(arguments: AdminArguments) throws {
        handle = try arguments.handle()
        horizon = try arguments.horizon()
        asOf = try arguments.date("as-of")
        format = try arguments.format(allowed: [.text, .json])
    }

    func run(_ context: AdminContext) throws {
        let user = try context.user(handle)
        guard let summary = try context.summary(for: user, horizon: horizon, asOf: asOf, format: format) else {
            return
        }
        let personal = try context.results.personal(for: user, asOf: summary.asOf, window: summary.window)
        switch format {
        case .json:
            context.console.print(try JSONText.encode(Document(summary: summary, personal: personal)))
        default:
            var text = Self.text(
                summary, user: user, style: context.style, rules: context.results.rules, personal: personal)
            if asOf == nil {
                let state = try context.results.lastRollup(of: user)
                if let at = state.at {
                    text += "\nStored by the rollup at \(ReportFormat.utcTime(at))."
                    text += state.isStale ? " New data or settings wait for the next `sleepledger rollup`.\n" : "\n"
                }
            }
            context.console.writeOutput(text)
        }
    }

    /// The dashboard as text; the thresholds it names are those of `rules`, the rules the
    /// summary was computed with.
    static func text(
        _ summary: Summary, user: User, style: AdminStyle, rules: MetricRules = .standard,
        personal: PersonalResults? = nil
    ) -> TerminalText {
        var lines: [TerminalText] = [
            style.paint("\(user.handle)", .bold)
                + "  \(summary.horizon.rawValue) summary as of \(summary.asOf)  (\(summary.window.first) to \(summary.window.last), \(user.timeZoneIdentifier))",
            "",
        ]
        lines += debtLines(summary, style: style, rules: rules) + [""]
        lines += scoreLines(summary.score, style: style) + [""]
        lines += lastNightLines(summary, user: user, style: style) + [""]
        lines += weekLines(summary, style: style, rules: rules) + [""]
        if let personal { lines += personalLines(personal, style: style) + [""] }
        lines += debtSeriesLines(summary, style: style)
        while let last = lines.last, last.visible.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        return lines.reduce(into: TerminalText.empty) { $0 += $1.trimmingTrailingSpaces() + "\n" }
    }

    /// The debt headline, the nightly average, the rolling debt and the recovery plans.
    /// The need, chronotype and confidence lines (issue 24).
    static func personalLines(_ personal: PersonalResults, style: AdminStyle) -> [TerminalText] {
        [
            style.paint("Own need", .bold) + "    " + TerminalText(PersonalText.need(personal.need)),
            style.paint("Chronotype", .bold) + "  " + TerminalText(PersonalText.chronotype(personal.chronotype)),
            style.paint("Confidence", .bold) + "  " + TerminalText(PersonalText.confidence(personal.confidence)),
        ]
    }

    /// The JSON document: the summary (docs/summary-json.md) with a `personal` member added.
    struct Document: Encodable {
        let summary: Summary
        let personal: PersonalResults

        enum Keys: String, CodingKey { case personal }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(personal, forKey: .personal)
        }
    }

    static func debtLines(_ summary: Summary, style: AdminStyle, rules: MetricRules) -> [TerminalText] {
        let hours = ReportFormat.hours as (Int64) -> String
        let debt = summary.debt
        let reference = ReportFormat.debtReference(summary)
        let against =
            summary.estimatedNeed == nil
            ? "a target of \(hours(summary.goalBand.targetSeconds))"
            : "an estimated need of \(hours(summary.goalBand.targetSeconds)) (each night: the need from the nights before it)"
        var lines: [TerminalText] = [
            style.paint("Sleep debt  \(hours(debt.debtSeconds))", .bold) + "  " + style.severity(debt.severity)
                + "  over \(ReportFormat.nights(debt.trackedNights)) against \(against)"
        ]
        if let average = debt.averageNightlyBalanceSeconds, let asleep = debt.averageAsleepSeconds {
            let relation =
                average < 0
                ? "\(hours(-average)) short of \(reference) a night"
                : average == 0 ? "on \(reference)" : "\(hours(average)) over \(reference) a night"
            lines.append("  Nightly average   \(hours(asleep)) asleep, \(relation)")
        } else {
            lines.append("  Nightly average   no tracked nights in this window")
        }
        let rollingLabel = "Rolling \(rules.rollingWindowNights) nights"
        guard let rolling = summary.rollingDebt else {
            lines.append(
                "  \(rollingLabel) fewer than \(rules.rollingMinimumTrackedNights) tracked nights in the last \(rules.rollingWindowNights) days"
            )
            return lines
        }
        lines.append(
            "  \(rollingLabel) \(hours(rolling.debtSeconds)) over \(ReportFormat.nights(rolling.trackedNights)) (\(rolling.window.first) to \(rolling.window.last)), "
                + style.severity(rolling.severity))
        let plans = rolling.recovery.map { plan in
            let needed: String
            if let count = plan.nightsNeeded {
                needed = count == 0 ? "already recovered" : "\(count) night\(count == 1 ? "" : "s")"
            } else {
                needed = "more than \(plan.nightCap) nights"
            }
            return "+\(hours(plan.extraSeconds)) a night: \(needed)"
        }
        if !plans.isEmpty {
            let column = String(repeating: " ", count: max(1, rollingLabel.count + 1 - "Recovery".count))
            lines.append("  Recovery\(column)\(plans.joined(separator: "; "))")
        }
        return lines
    }

    /// The score and its components.
    static func scoreLines(_ score: SleepScore, style: AdminStyle) -> [TerminalText] {
        let headline = style.paint("Sleep score  \(score.overall)/100", .bold) + "  \(score.grade.rawValue)"
        guard let c = score.components else { return [headline, "  no tracked nights to score"] }
        return [
            headline,
            "  Duration \(c.duration)  Efficiency \(c.efficiency)  Consistency \(c.consistency)  Stages \(c.stages)",
        ]
    }

    /// Last night with its stage bar.
    static func lastNightLines(_ summary: Summary, user: User, style: AdminStyle) -> [TerminalText] {
        guard let last = summary.lastNight else {
            return [style.paint("Last night", .bold) + "  no night woke on \(summary.asOf) or the day before"]
        }
        let hours = ReportFormat.hours as (Int64) -> String
        let zone = last.timeZoneIdentifier == user.timeZoneIdentifier ? "" : " (\(last.timeZoneIdentifier))"
        let p = last.stageProportions
        var legend: [String] = [
            "Deep \(ReportFormat.percent(p.deep))", "REM \(ReportFormat.percent(p.rem))",
            "Core \(ReportFormat.percent(p.core))",
        ]
        if p.unspecified > 0 { legend.append("Unstaged \(ReportFormat.percent(p.unspecified))") }
        legend.append("Awake \(ReportFormat.percent(p.awake))")
        return [
            style.paint("Last night  \(hours(last.asleepSeconds)) asleep", .bold)
                + "  woke \(last.wakeDay), in bed \(ReportFormat.clock(last.bedtimeLocal)) to \(ReportFormat.clock(last.wakeLocal))\(zone), \(hours(last.timeInBedSeconds)) in bed, efficiency \(ReportFormat.percent(last.efficiency))",
            "  [\(style.stageBar(p, width: 40))]  \(legend.joined(separator: "  "))",
        ]
    }

    /// The week's quick stats, the trend and the patterns.
    static func weekLines(_ summary: Summary, style: AdminStyle, rules: MetricRules) -> [TerminalText] {
        let hours = ReportFormat.hours as (Int64) -> String
        let week = summary.weekly
        var stats = ["\(week.complianceText) at or above \(hours(summary.goalBand.minimumSeconds))"]
        if let average = week.averageAsleepSeconds { stats.insert("average \(hours(average)) asleep", at: 0) }
        if let efficiency = week.averageEfficiency { stats.append("efficiency \(ReportFormat.percent(efficiency))") }
        var lines: [TerminalText] = [
            style.paint("This week", .bold)
                + "  (\(week.window.first) to \(week.window.last))  \(stats.joined(separator: ", "))"
        ]
        if let trend = summary.trend {
            lines.append(
                style.paint("Trend", .bold)
                    + "  \(trend.direction.rawValue) (\(ReportFormat.signedHours(trend.differenceHours)) later half against earlier half, \(trend.nights) nights)"
            )
        } else {
            lines.append(style.paint("Trend", .bold) + "  fewer than \(rules.trendMinimumNights) tracked nights")
        }
        let findings = patternLines(summary.patterns, rules: rules)
        if summary.patterns == nil {
            lines.append(
                style.paint("Patterns", .bold) + "  fewer than \(rules.patternMinimumTrackedNights) tracked nights")
        } else if findings.isEmpty {
            lines.append(style.paint("Patterns", .bold) + "  none triggered")
        } else {
            lines.append(style.paint("Patterns", .bold))
            lines += findings.map { "  \($0)" }
        }
        return lines
    }

    /// The debt series as a bar chart, one row a bucket.
    static func debtSeriesLines(_ summary: Summary, style: AdminStyle) -> [TerminalText] {
        let hours = ReportFormat.hours as (Int64) -> String
        let heading =
            style.paint("Debt by \(ReportFormat.bucketName(summary.horizon))", .bold) + "  (shortfall, cumulative)"
        let maximum = Double(summary.buckets.map(\.debtSeconds).max() ?? 0)
        var table = TextTable(header: ["", "", "", ""])
        for bucket in summary.buckets {
            let bar = style.bar(Double(bucket.debtSeconds), of: maximum, width: 24)
            let painted = bucket.isBelowMinimum ? style.paint(bar, .warning) : bar
            table.append(
                [
                    "  \(ReportFormat.bucketLabel(bucket.range, horizon: summary.horizon))",
                    bucket.trackedNights == 0 ? "-" : "\(hours(bucket.debtSeconds))",
                    "\(hours(bucket.cumulativeDebtSeconds))", painted,
                ] as [TerminalText])
        }
        return [heading] + table.lines.dropFirst()
    }

    /// The triggered patterns with their figures.
    static func patternLines(_ patterns: SleepPatterns?, rules: MetricRules = .standard) -> [String] {
        guard let patterns else { return [] }
        var lines: [String] = []
        if let jetLag = patterns.socialJetLag {
            lines.append(
                "Social jet lag: weekends \(oneDecimal(jetLag.weekendAverageHours))h, workdays \(oneDecimal(jetLag.workdayAverageHours))h (\(ReportFormat.signedHours(jetLag.differenceHours)); \(jetLag.weekendNights) weekend and \(jetLag.workdayNights) workday nights)"
            )
        }
        if let late = patterns.lateBedtimes {
            lines.append(
                "Late bedtimes: \(late.lateNights) of \(late.trackedNights) nights in bed between \(clockHour(rules.lateBedtimeFromHour)) and \(clockHour(rules.lateBedtimeUntilHour, minute: -1)) (more than \(late.threshold))"
            )
        }
        if let deep = patterns.lowDeepSleep {
            lines.append(
                "Low deep sleep: \(ReportFormat.percent(deep.meanFraction)) of sleep on average (below \(ReportFormat.percent(deep.threshold)), \(deep.stagedNights) staged nights)"
            )
        }
        if let rem = patterns.lowREM {
            lines.append(
                "Low REM sleep: \(ReportFormat.percent(rem.meanFraction)) of sleep on average (below \(ReportFormat.percent(rem.threshold)), \(rem.stagedNights) staged nights)"
            )
        }
        return lines
    }

    static func oneDecimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// `hour:minute` on a 24-hour clock, `minute` minutes after the hour (wrapping round
    /// midnight): `clockHour(5, minute: -1)` is `04:59`.
    static func clockHour(_ hour: Int, minute: Int = 0) -> String {
        let minutes = ((hour * 60 + minute) % 1440 + 1440) % 1440
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
