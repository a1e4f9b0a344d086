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
        switch format {
        case .json:
            context.console.print(try JSONText.encode(summary))
        default:
            var text = Self.text(summary, user: user, style: context.style)
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

    /// The dashboard as text.
    static func text(_ summary: Summary, user: User, style: AdminStyle) -> TerminalText {
        var lines: [TerminalText] = []
        let hours = ReportFormat.hours as (Int64) -> String
        let band = summary.goalBand
        lines.append(
            style.paint("\(user.handle)", .bold)
                + "  \(summary.horizon.rawValue) summary as of \(summary.asOf)  (\(summary.window.first) to \(summary.window.last), \(user.timeZoneIdentifier))"
        )
        lines.append("")

        // Debt headline.
        let debt = summary.debt
        lines.append(
            style.paint("Sleep debt  \(hours(debt.debtSeconds))", .bold) + "  " + style.severity(debt.severity)
                + "  over \(ReportFormat.nights(debt.trackedNights)) against a target of \(hours(band.targetSeconds))")
        if let average = debt.averageNightlyBalanceSeconds, let asleep = debt.averageAsleepSeconds {
            let relation =
                average < 0
                ? "\(hours(-average)) short of target a night"
                : average == 0 ? "on target" : "\(hours(average)) over target a night"
            lines.append("  Nightly average   \(hours(asleep)) asleep, \(relation)")
        } else {
            lines.append("  Nightly average   no tracked nights in this window")
        }
        if let rolling = summary.rollingDebt {
            lines.append(
                "  Rolling 14 nights \(hours(rolling.debtSeconds)) over \(ReportFormat.nights(rolling.trackedNights)) (\(rolling.window.first) to \(rolling.window.last)), "
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
            if !plans.isEmpty { lines.append("  Recovery          \(plans.joined(separator: "; "))") }
        } else {
            lines.append("  Rolling 14 nights fewer than 5 tracked nights in the last 14 days")
        }
        lines.append("")

        // Score.
        let score = summary.score
        lines.append(style.paint("Sleep score  \(score.overall)/100", .bold) + "  \(score.grade.rawValue)")
        if let c = score.components {
            lines.append(
                "  Duration \(c.duration)  Efficiency \(c.efficiency)  Consistency \(c.consistency)  Stages \(c.stages)"
            )
        } else {
            lines.append("  no tracked nights to score")
        }
        lines.append("")

        // Last night.
        if let last = summary.lastNight {
            let zone = last.timeZoneIdentifier == user.timeZoneIdentifier ? "" : " (\(last.timeZoneIdentifier))"
            lines.append(
                style.paint("Last night  \(hours(last.asleepSeconds)) asleep", .bold)
                    + "  woke \(last.wakeDay), in bed \(ReportFormat.clock(last.bedtimeLocal)) to \(ReportFormat.clock(last.wakeLocal))\(zone), \(hours(last.timeInBedSeconds)) in bed, efficiency \(ReportFormat.percent(last.efficiency))"
            )
            let p = last.stageProportions
            var legend: [String] = [
                "Deep \(ReportFormat.percent(p.deep))", "REM \(ReportFormat.percent(p.rem))",
                "Core \(ReportFormat.percent(p.core))",
            ]
            if p.unspecified > 0 { legend.append("Unstaged \(ReportFormat.percent(p.unspecified))") }
            legend.append("Awake \(ReportFormat.percent(p.awake))")
            lines.append("  [\(style.stageBar(p, width: 40))]  \(legend.joined(separator: "  "))")
        } else {
            lines.append(style.paint("Last night", .bold) + "  no night woke on \(summary.asOf) or the day before")
        }
        lines.append("")

        // Weekly quick stats.
        let week = summary.weekly
        var stats = ["\(week.complianceText) at or above \(hours(band.minimumSeconds))"]
        if let average = week.averageAsleepSeconds { stats.insert("average \(hours(average)) asleep", at: 0) }
        if let efficiency = week.averageEfficiency { stats.append("efficiency \(ReportFormat.percent(efficiency))") }
        lines.append(
            style.paint("This week", .bold)
                + "  (\(week.window.first) to \(week.window.last))  \(stats.joined(separator: ", "))")

        // Trend.
        if let trend = summary.trend {
            lines.append(
                style.paint("Trend", .bold)
                    + "  \(trend.direction.rawValue) (\(ReportFormat.signedHours(trend.differenceHours)) later half against earlier half, \(trend.nights) nights)"
            )
        } else {
            lines.append(style.paint("Trend", .bold) + "  fewer than 3 tracked nights")
        }

        // Patterns.
        let findings = patternLines(summary.patterns)
        if summary.patterns == nil {
            lines.append(style.paint("Patterns", .bold) + "  fewer than 5 tracked nights")
        } else if findings.isEmpty {
            lines.append(style.paint("Patterns", .bold) + "  none triggered")
        } else {
            lines.append(style.paint("Patterns", .bold))
            lines += findings.map { "  \($0)" }
        }
        lines.append("")

        // Debt series.
        lines.append(
            style.paint("Debt by \(ReportFormat.bucketName(summary.horizon))", .bold) + "  (shortfall, cumulative)")
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
        lines += table.lines.dropFirst()
        while let last = lines.last, last.visible.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        return lines.reduce(into: TerminalText.empty) { $0 += $1.trimmingTrailingSpaces() + "\n" }
    }

    /// The triggered patterns with their figures.
    static func patternLines(_ patterns: SleepPatterns?) -> [String] {
        guard let patterns else { return [] }
        var lines: [String] = []
        if let jetLag = patterns.socialJetLag {
            lines.append(
                "Social jet lag: weekends \(oneDecimal(jetLag.weekendAverageHours))h, workdays \(oneDecimal(jetLag.workdayAverageHours))h (\(ReportFormat.signedHours(jetLag.differenceHours)); \(jetLag.weekendNights) weekend and \(jetLag.workdayNights) workday nights)"
            )
        }
        if let late = patterns.lateBedtimes {
            lines.append(
                "Late bedtimes: \(late.lateNights) of \(late.trackedNights) nights in bed between 00:00 and 04:59 (more than \(late.threshold))"
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
}
