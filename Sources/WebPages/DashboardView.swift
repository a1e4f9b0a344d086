import Foundation
public import SleepCore
import SleepReports

/// The dashboard: what the Somnus app shows on a phone, for the web (issue 14, item 2).
///
/// From a ``SleepCore/Summary`` of one horizon: the sleep-debt card (debt and its severity,
/// nightly average, rolling 14-night debt and the recovery plan), the sleep score with its
/// four components and grade, last night (bed and wake times in that night's own UTC
/// offset, asleep, efficiency, the stage timeline when stages exist), this week's quick
/// stats with the trend, the patterns with what each means, regularity (SRI and mid-sleep
/// social jet lag), and the horizon switch (plain links, `/?horizon=...`) with the duration
/// and debt charts of SleepReports inline. A person without a summary sees why and what to
/// do next.
public enum DashboardView {
    /// What the dashboard shows.
    public enum Content: Sendable, Hashable {
        /// A summary, with the stored nights of its window (the duration chart draws them
        /// for the daily and weekly horizons; other horizons need none).
        case summary(Summary, windowNights: [Night])
        /// No summary, and why.
        case absent(DashboardAbsence)
    }

    /// The dashboard page of `handle` for `horizon`.
    ///
    /// - Parameters:
    ///   - isRollupPending: new data or settings wait for the rollup (a notice says so).
    ///   - storedAt: when the rollup stored the summary (seconds since 1970), shown at the
    ///     end; `nil` for a summary computed on the fly.
    ///   - notice: a message at the top.
    ///   - rules: the rules the summary was computed with; the thresholds the page names
    ///     are theirs.
    ///   - nightRules: the rules nights were built with, named when no night was found.
    ///   - personal: the cards of the person's own need, body clock and confidence.
    ///   - workDays: the person's work days; the patterns and regularity cards name the
    ///     other days' mornings as their free days.
    public static func page(
        handle: String, horizon: Horizon, content: Content, isRollupPending: Bool = false, storedAt: Int64? = nil,
        notice: WebNotice? = nil, rules: MetricRules = .standard, nightRules: NightRules = .standard,
        personal: PersonalCards? = nil, workDays: WorkDays = .mondayToFriday
    ) -> WebPage {
        var body: HTML = notice.html
        switch content {
        case .summary(let summary, let nights):
            body += summaryBody(
                summary, nights: nights, handle: handle, isRollupPending: isRollupPending, storedAt: storedAt,
                rules: rules, personal: personal, workDays: workDays)
        case .absent(let absence):
            body += absentBody(absence, horizon: horizon, isRollupPending: isRollupPending, nightRules: nightRules)
        }
        return WebPage(title: "Dashboard", current: .dashboard, body: body)
    }

    // MARK: Without a summary

    static func absentBody(
        _ absence: DashboardAbsence, horizon: Horizon, isRollupPending: Bool, nightRules: NightRules = .standard
    ) -> HTML {
        var body: HTML = """
            <h1>Your sleep</h1>
            <section class="card empty-state" aria-labelledby="empty-heading">
            <h2 id="empty-heading">\(absence.heading)</h2>
            <p>\(absence.explanation(nightRules: nightRules))</p>

            """
        if isRollupPending {
            body += "<p>New data is waiting to be summarised: reload this page in a moment.</p>\n"
        }
        if absence.needsData {
            body += """
                <h3>What to do next</h3>
                <ol class="next-steps">
                <li><a href="\(WebPaths.upload)">Upload your Apple Health export</a>. On your iPhone, open the \
                Health app, tap your picture at the top right, choose <strong>Export All Health Data</strong>, \
                and send the <code>export.zip</code> here (a bare <code>export.xml</code> or a CSV of sleep \
                samples works too).</li>
                <li>Or let the iPhone app <strong>Health Auto Export</strong> send new sleep every day by \
                itself: <a href="\(WebPaths.tokens)">create an ingest token</a> and enter the settings shown \
                there.</li>
                </ol>

                """
        } else {
            body += horizonSwitch(current: horizon)
        }
        body += "</section>\n"
        return body
    }

    // MARK: With a summary

    static func summaryBody(
        _ summary: Summary, nights: [Night], handle: String, isRollupPending: Bool, storedAt: Int64?,
        rules: MetricRules = .standard, personal: PersonalCards? = nil, workDays: WorkDays = .mondayToFriday
    ) -> HTML {
        var body: HTML = """
            <div class="page-head">
            <h1>Your sleep</h1>
            <p class="lede">\(WebFormat.horizonName(summary.horizon)) summary as of \
            \(WebFormat.weekday(summary.asOf)) \(summary.asOf), covering \(WebFormat.range(summary.window)).</p>
            </div>

            """
        if isRollupPending {
            body += WebNotice(.info, "New data or settings are waiting to be summarised: reload in a moment.").html
        }
        body += horizonSwitch(current: summary.horizon)
        if summary.debt.trackedNights == 0 {
            body +=
                WebNotice(
                    .info,
                    "No night woke between \(summary.window.first) and \(summary.window.last). "
                        + "A longer horizon shows your older nights; new ones appear after your next upload."
                ).html
        }
        body += "<div class=\"cards\">\n"
        body += debtCard(summary, rules: rules)
        body += scoreCard(summary, rules: rules.score)
        body += lastNightCard(summary)
        body += weekCard(summary, rules: rules)
        body += patternsCard(summary, rules: rules, workDays: workDays)
        body += regularityCard(summary, workDays: workDays)
        if let personal { body += personal.html }
        body += "</div>\n"
        body += charts(summary, nights: nights, handle: handle)
        if let storedAt {
            body += "<p class=\"stored\">Computed by the rollup at \(ReportFormat.utcTime(storedAt)).</p>\n"
        }
        return body
    }

    /// The horizon switch: plain links, so it works without JavaScript.
    static func horizonSwitch(current: Horizon) -> HTML {
        let links = Horizon.allCases.map { horizon -> HTML in
            let mark: HTML = horizon == current ? " aria-current=\"page\"" : ""
            return
                "<li><a href=\"\(WebPaths.dashboard(horizon: horizon.rawValue))\"\(mark)>\(WebFormat.horizonName(horizon))</a></li>"
        }
        return "<nav class=\"horizons\" aria-label=\"Horizon\"><ul>\(links)</ul></nav>\n"
    }

    /// A severity as a badge: its word, coloured (never colour alone).
    static func severityBadge(_ severity: DebtSeverity) -> HTML {
        "<span class=\"badge severity-\(severity.rawValue)\">\(severityName(severity))</span>"
    }

    static func severityName(_ severity: DebtSeverity) -> String {
        switch severity {
        case .normal: return "Normal"
        case .concerning: return "Concerning"
        case .critical: return "Critical"
        }
    }

    static func debtCard(_ summary: Summary, rules: MetricRules = .standard) -> HTML {
        let debt = summary.debt
        let hours = ReportFormat.hours as (Int64) -> String
        let target = summary.goalBand.targetSeconds
        let reference = ReportFormat.debtReference(summary)
        let against: HTML =
            summary.estimatedNeed == nil
            ? "against your target of \(hours(target))."
            : "against your estimated need (\(hours(target)) as of \(summary.asOf); each night "
                + "against the need estimated from the nights before it)."
        var card: HTML = """
            <section class="card debt severity-\(debt.severity.rawValue)" aria-labelledby="debt-heading">
            <h2 id="debt-heading">Sleep debt</h2>
            <p class="figure"><span class="big">\(hours(debt.debtSeconds))</span> \(severityBadge(debt.severity))</p>
            <p>Over \(ReportFormat.nights(debt.trackedNights)) from \(WebFormat.range(summary.window)), \(against)</p>
            <dl class="facts">

            """
        if let balance = debt.averageNightlyBalanceSeconds, let asleep = debt.averageAsleepSeconds {
            let relation =
                balance < 0
                ? "\(hours(-balance)) short of your \(reference) a night"
                : balance == 0 ? "on \(reference)" : "\(hours(balance)) over your \(reference) a night"
            card += "<dt>Nightly average</dt><dd>\(hours(asleep)) asleep, \(relation)</dd>\n"
        } else {
            card += "<dt>Nightly average</dt><dd>No tracked night in this window</dd>\n"
        }
        let rollingLabel = "Rolling \(rules.rollingWindowNights) nights"
        if let rolling = summary.rollingDebt {
            card += """
                <dt>\(rollingLabel)</dt><dd>\(hours(rolling.debtSeconds)) \(severityBadge(rolling.severity)) \
                over \(ReportFormat.nights(rolling.trackedNights)) from \(WebFormat.range(rolling.window))</dd>
                </dl>

                """
            card += recoveryPlan(rolling, goalSeconds: rules.recoveryGoalSeconds, reference: reference)
        } else {
            card += """
                <dt>\(rollingLabel)</dt><dd>Needs at least \(rules.rollingMinimumTrackedNights) tracked nights in \
                the last \(rules.rollingWindowNights) days</dd>
                </dl>

                """
        }
        card += """
            <p class="explain">Debt adds up how far each night fell short of your \(reference); nights over it \
            do not cancel it, and days without data add nothing. Up to \(hours(rules.concerningDebtSeconds)) is \
            normal, more than \(hours(rules.concerningDebtSeconds)) concerning, more than \
            \(hours(rules.criticalDebtSeconds)) critical. The rolling debt weighs recent nights more and lets longer nights pay it back.</p>
            </section>

            """
        return card
    }

    /// The recovery plan of the rolling debt: extra sleep a night over `reference` (what
    /// debt is measured against, ``ReportFormat/debtReference(_:)``) and the nights it takes.
    static func recoveryPlan(
        _ rolling: RollingDebt, goalSeconds: Int64 = MetricRules.standard.recoveryGoalSeconds,
        reference: String = "target"
    ) -> HTML {
        guard !rolling.recovery.isEmpty else { return .empty }
        let goal = ReportFormat.hours(goalSeconds)
        if rolling.recovery.allSatisfy({ $0.nightsNeeded == 0 }) {
            return "<p class=\"recovery\">Your rolling debt is under \(goal): nothing to recover.</p>\n"
        }
        let plans = rolling.recovery.map { plan -> HTML in
            let needed: String
            if let count = plan.nightsNeeded {
                needed = count == 0 ? "already under \(goal)" : ReportFormat.nights(count)
            } else {
                needed = "more than \(ReportFormat.nights(plan.nightCap))"
            }
            return "<li>Sleep \(ReportFormat.hours(plan.extraSeconds)) more than your \(reference): \(needed)</li>"
        }
        return """
            <h3 class="recovery-heading">Recovery plan</h3>
            <p class="recovery">To bring the rolling debt under \(goal), each night:</p>
            <ul class="plans">\(plans)</ul>

            """
    }

    static func scoreCard(_ summary: Summary, rules: ScoreRules = ScoreRules()) -> HTML {
        let score = summary.score
        let grade = score.grade.rawValue.lowercased().replacingOccurrences(of: " ", with: "-")
        var card: HTML = """
            <section class="card score grade-\(grade)" aria-labelledby="score-heading">
            <h2 id="score-heading">Sleep score</h2>
            <p class="figure"><span class="big">\(score.overall)</span><span class="unit">/100</span> \
            <span class="badge grade">\(score.grade.rawValue)</span></p>

            """
        if let components = score.components {
            let rows = componentRows(components, rules: rules)
            let items = rows.map { row -> HTML in
                """
                <div class="component"><dt>\(row.0) <span class="weight">\(row.1)</span></dt>\
                <dd><meter min="0" max="100" low="\(rules.fairFrom)" high="\(rules.goodFrom)" optimum="100" \
                value="\(row.2)" \
                aria-label="\(row.0) \(row.2) of 100"></meter> <span class="value">\(row.2)</span></dd></div>
                """
            }
            let explanations = rows.map { row -> HTML in "<li><strong>\(row.0)</strong> (\(row.1)): \(row.3).</li>" }
            card += """
                <dl class="components">\(items.joined(separator: "\n"))</dl>
                <p>Over \(ReportFormat.nights(score.trackedNights)). Excellent is \(rules.excellentFrom) and up, \
                Good \(rules.goodFrom), Fair \(rules.fairFrom), Poor \(rules.poorFrom).</p>
                <details><summary>How the score is made</summary><ul>\(explanations)</ul></details>

                """
        } else {
            card += "<p>No tracked night in this window to score.</p>\n"
        }
        card += "</section>\n"
        return card
    }

    /// The four score components: name, weight, value and how it is made, in the words
    /// and figures of `rules`.
    static func componentRows(_ components: ScoreComponents, rules: ScoreRules) -> [(String, String, Int, String)] {
        let percent = ReportFormat.percent
        let number = WebFormat.number
        let plateauFloor = Int(
            (100 - rules.durationPlateauSlope
                * max(
                    rules.durationIdealHours - rules.durationLowerHours,
                    rules.durationUpperHours - rules.durationIdealHours))
                .rounded())
        let efficientScore = Int((rules.efficiencyThreshold * 100 + rules.efficiencyBonus).rounded())
        return [
            (
                "Duration", percent(rules.durationWeight), components.duration,
                "how close your average sleep is to \(number(rules.durationIdealHours)) hours; "
                    + "\(number(rules.durationLowerHours)) to \(number(rules.durationUpperHours)) hours scores "
                    + "\(plateauFloor) or more"
            ),
            (
                "Efficiency", percent(rules.efficiencyWeight), components.efficiency,
                "the share of your time in bed spent asleep; \(percent(rules.efficiencyThreshold)) or more scores "
                    + "at least \(efficientScore)"
            ),
            (
                "Consistency", percent(rules.consistencyWeight), components.consistency,
                "how steady your bedtimes are; a spread of \(number(rules.consistencyScaleMinutes / 60)) hours scores 0"
            ),
            (
                "Stages", percent(rules.stagesWeight), components.stages,
                "how close deep and REM sleep come to \(percent(rules.stagesDeepIdeal)) and "
                    + "\(percent(rules.stagesREMIdeal)) of your sleep; \(rules.stagesDefault) without stage data"
            ),
        ]
    }

    static func lastNightCard(_ summary: Summary) -> HTML {
        guard let last = summary.lastNight else {
            return """
                <section class="card last-night" aria-labelledby="last-heading">
                <h2 id="last-heading">Last night</h2>
                <p>No night woke on \(summary.asOf) or the day before.</p>
                </section>

                """
        }
        let zone = last.timeZoneIdentifier
        let bedOffset = WebFormat.offset(local: last.bedtimeLocal, instant: last.bedtime, zone: zone)
        let wakeOffset = WebFormat.offset(local: last.wakeLocal, instant: last.wake, zone: zone)
        let bed = ReportFormat.clock(last.bedtimeLocal)
        let wake = ReportFormat.clock(last.wakeLocal)
        let times: HTML
        if bedOffset == wakeOffset {
            times =
                "In bed <time datetime=\"\(last.bedtimeLocal)\">\(bed)</time> to <time datetime=\"\(last.wakeLocal)\">\(wake)</time> (\(WebFormat.utcOffset(bedOffset)), \(zone))"
        } else {
            times =
                "In bed <time datetime=\"\(last.bedtimeLocal)\">\(bed)</time> (\(WebFormat.utcOffset(bedOffset))) to <time datetime=\"\(last.wakeLocal)\">\(wake)</time> (\(WebFormat.utcOffset(wakeOffset))), \(zone)"
        }
        let proportions = last.stageProportions
        var shares: [(String, String, Double)] = [
            ("deep", "Deep", proportions.deep), ("rem", "REM", proportions.rem), ("core", "Core", proportions.core),
        ]
        if proportions.unspecified > 0 { shares.append(("unstaged", "Unstaged", proportions.unspecified)) }
        shares.append(("awake", "Awake", proportions.awake))
        let legend = shares.map { share -> HTML in
            "<li><span class=\"swatch st-\(share.0)\" aria-hidden=\"true\"></span>\(share.1) \(ReportFormat.percent(share.2))</li>"
        }
        var card: HTML = """
            <section class="card last-night" aria-labelledby="last-heading">
            <h2 id="last-heading">Last night</h2>
            <p class="figure"><span class="big">\(ReportFormat.hours(last.asleepSeconds))</span> asleep</p>
            <p>Woke \(WebFormat.weekday(last.wakeDay)) \(last.wakeDay). \(times): \
            \(ReportFormat.hours(last.timeInBedSeconds)) in bed, efficiency \(ReportFormat.percent(last.efficiency)).</p>

            """
        if StageTimeline.hasStages(last) {
            let description =
                "Stages from \(bed) to \(wake): "
                + shares.map { "\($0.1) \(ReportFormat.percent($0.2))" }.joined(separator: ", ")
            card += StageTimeline.html(last, description: description)
            card += "<p class=\"timeline-ends\"><span>\(bed)</span><span>\(wake)</span></p>\n"
            card += "<ul class=\"stage-legend\">\(legend)</ul>\n"
        } else {
            card += """
                <p>No sleep stages were recorded for this night (\(ReportFormat.percent(proportions.awake)) of it \
                awake), so it counts toward duration and efficiency but not the stages score.</p>

                """
        }
        card += "</section>\n"
        return card
    }

    static func weekCard(_ summary: Summary, rules: MetricRules = .standard) -> HTML {
        let week = summary.weekly
        let minimum = ReportFormat.hours(summary.goalBand.minimumSeconds)
        var card: HTML = """
            <section class="card week" aria-labelledby="week-heading">
            <h2 id="week-heading">This week</h2>
            <p>\(WebFormat.range(week.window))</p>
            <dl class="facts">

            """
        if let average = week.averageAsleepSeconds {
            card += "<dt>Average asleep</dt><dd>\(ReportFormat.hours(average))</dd>\n"
        }
        var compliance = "\(week.compliantNights) of \(ReportFormat.nights(week.trackedNights))"
        if let rate = week.complianceRate { compliance += " (\(ReportFormat.percent(rate)))" }
        card += "<dt>At or above your \(minimum) minimum</dt><dd>\(compliance)</dd>\n"
        if let efficiency = week.averageEfficiency {
            card += "<dt>Efficiency</dt><dd>\(ReportFormat.percent(efficiency))</dd>\n"
        }
        card +=
            "<dt>Trend</dt><dd>\(trendText(summary.trend, window: summary.window, rules: rules))</dd>\n</dl>\n</section>\n"
        return card
    }

    static func trendText(_ trend: SleepTrend?, window: WakeDayRange, rules: MetricRules = .standard) -> HTML {
        let range = WebFormat.range(window)
        guard let trend else {
            return "A trend needs at least \(rules.trendMinimumNights) tracked nights from \(range)."
        }
        let half = trend.nights / 2
        let halves = "your last \(ReportFormat.nights(half))"
        let difference = WebFormat.hoursOneDecimal(trend.differenceHours)
        let stable =
            "\(WebFormat.number(rules.trendStableHours)) h (\(Int((rules.trendStableHours * 60).rounded())) minutes)"
        switch trend.direction {
        case .improving:
            return
                "<span class=\"trend trend-improving\">Improving</span>: \(halves) averaged \(difference) more sleep than the first \(half) from \(range)."
        case .declining:
            return
                "<span class=\"trend trend-declining\">Declining</span>: \(halves) averaged \(difference) less sleep than the first \(half) from \(range)."
        case .stable:
            return
                "<span class=\"trend trend-stable\">Stable</span>: \(halves) and the first \(half) from \(range) differ by less than \(stable)."
        }
    }

    static func patternsCard(
        _ summary: Summary, rules: MetricRules = .standard, workDays: WorkDays = .mondayToFriday
    ) -> HTML {
        var card: HTML = """
            <section class="card patterns" aria-labelledby="patterns-heading">
            <h2 id="patterns-heading">Patterns</h2>

            """
        guard let patterns = summary.patterns else {
            card += """
                <p>Patterns need at least \(rules.patternMinimumTrackedNights) tracked nights in this window; it has \
                \(ReportFormat.nights(summary.debt.trackedNights)).</p>
                </section>

                """
            return card
        }
        let findings = patternFindings(patterns, rules: rules, workDays: workDays)
        if findings.isEmpty {
            card += """
                <p>Nothing stands out over \(ReportFormat.nights(patterns.trackedNights)): no weekend catch-up \
                sleep, no run of late bedtimes, and deep and REM sleep in their usual range where stages were \
                recorded.</p>

                """
        } else {
            let items = findings.map { finding -> HTML in
                "<li><h3>\(finding.title)</h3><p>\(finding.text)</p></li>"
            }
            card += "<ul class=\"findings\">\(items.joined(separator: "\n"))</ul>\n"
        }
        card += "</section>\n"
        return card
    }

    /// Each triggered pattern with a sentence on what it measured and what it means.
    static func patternFindings(
        _ patterns: SleepPatterns, rules: MetricRules = .standard, workDays: WorkDays = .mondayToFriday
    ) -> [(title: String, text: String)] {
        var findings: [(String, String)] = []
        if let jetLag = patterns.socialJetLag {
            findings.append(
                (
                    "Social jet lag",
                    "You sleep \(WebFormat.hoursOneDecimal(jetLag.differenceHours)) more on nights before "
                        + "\(WebFormat.freeMornings(workDays)) (\(WebFormat.oneDecimal(jetLag.weekendAverageHours)) h over "
                        + "\(ReportFormat.nights(jetLag.weekendNights))) than before workdays "
                        + "(\(WebFormat.oneDecimal(jetLag.workdayAverageHours)) h over "
                        + "\(ReportFormat.nights(jetLag.workdayNights))). Catching up at weekends is a sign of "
                        + "running short during the week, and the change of rhythm feels like crossing time zones "
                        + "every weekend."
                ))
        }
        if let late = patterns.lateBedtimes {
            findings.append(
                (
                    "Late bedtimes",
                    "On \(late.lateNights) of \(ReportFormat.nights(late.trackedNights)) you went to bed between "
                        + "\(WebFormat.hourOfDay(rules.lateBedtimeFromHour)) and "
                        + "\(WebFormat.hourOfDay(rules.lateBedtimeUntilHour)), more than "
                        + "\(WebFormat.share(rules.lateBedtimeNightDivisor)) of them. Late bedtimes shorten the night when the "
                        + "morning is fixed, and push your body clock later."
                ))
        }
        if let deep = patterns.lowDeepSleep {
            findings.append(
                (
                    "Low deep sleep",
                    "Deep sleep was \(ReportFormat.percent(deep.meanFraction)) of your sleep on average over "
                        + "\(ReportFormat.nights(deep.stagedNights)) with stage data, below "
                        + "\(ReportFormat.percent(deep.threshold)); 15% to 25% is usual. Deep sleep is the most "
                        + "restorative stage. Watch stage estimates are approximate, so read this as a hint "
                        + "rather than a measurement."
                ))
        }
        if let rem = patterns.lowREM {
            findings.append(
                (
                    "Low REM sleep",
                    "REM sleep was \(ReportFormat.percent(rem.meanFraction)) of your sleep on average over "
                        + "\(ReportFormat.nights(rem.stagedNights)) with stage data, below "
                        + "\(ReportFormat.percent(rem.threshold)); 20% to 25% is usual. Most REM sleep comes in the "
                        + "last hours of the night, so short nights cut it first. Watch stage estimates are "
                        + "approximate."
                ))
        }
        return findings
    }

    static func regularityCard(_ summary: Summary, workDays: WorkDays = .mondayToFriday) -> HTML {
        var card: HTML = """
            <section class="card regularity" aria-labelledby="regularity-heading">
            <h2 id="regularity-heading">Regularity</h2>

            """
        if let regularity = summary.regularity {
            card += """
                <p class="figure"><span class="big">\(Int(regularity.index.rounded()))</span> \
                <span class="unit">Sleep Regularity Index</span></p>
                <p>The chance of being in the same state, asleep or awake, at two moments 24 hours apart, on a \
                scale from -100 to 100: 100 means the same schedule every day, 0 no more alike than chance. \
                Measured over \(ReportFormat.hours(regularity.pairedSeconds)) of paired time across \
                \(ReportFormat.nights(regularity.nights)).</p>

                """
        } else {
            card += "<p>The Sleep Regularity Index needs nights on consecutive days in this window.</p>\n"
        }
        if let jetLag = summary.midSleepJetLag {
            card += """
                <h3>Mid-sleep social jet lag</h3>
                <p class="figure"><span class="big">\(WebFormat.hoursOneDecimal(jetLag.differenceHours))</span></p>
                <p>Halfway between falling asleep and waking, you were at \
                \(WebFormat.clockOfDay(jetLag.freeDayMidSleepSeconds)) on free days (\(WebFormat.freeMornings(workDays)), \
                \(ReportFormat.nights(jetLag.freeDayNights))) and at \
                \(WebFormat.clockOfDay(jetLag.workDayMidSleepSeconds)) on work days \
                (\(ReportFormat.nights(jetLag.workDayNights))). The bigger the gap, the more your body clock shifts \
                between the week and the weekend.</p>

                """
        } else {
            card += "<p>Mid-sleep social jet lag needs both weekend and workday nights in this window.</p>\n"
        }
        card += "</section>\n"
        return card
    }

    // MARK: Charts

    static func charts(_ summary: Summary, nights: [Night], handle: String) -> HTML {
        let horizon = summary.horizon
        let bucket = ReportFormat.bucketName(horizon)
        let band = summary.goalBand
        let perNight = horizon == .daily || horizon == .weekly
        let reference = "\(ReportFormat.hours(band.targetSeconds)) \(ReportFormat.debtReference(summary))"
        let greenBand: HTML =
            "the green band runs from your \(ReportFormat.hours(band.minimumSeconds)) minimum to your \(reference)"
        let durationCaption: HTML =
            perNight
            ? "Each night from bedtime to wake, coloured by stage; \(greenBand), and nights under the minimum are marked in red."
            : "Average sleep per \(bucket); \(greenBand), and a \(bucket) averaging under the minimum is red."
        let debtCaption: HTML =
            "Shortfall against your \(reference) per \(bucket) (bars) and the debt adding up over the window (line)."
        var section: HTML = """
            <section class="charts" aria-labelledby="charts-heading">
            <h2 id="charts-heading">\(WebFormat.horizonName(horizon)) charts</h2>
            \(InlineChart.figure(DurationChart.svg(summary: summary, nights: nights, handle: handle), caption: durationCaption, kind: "duration"))\
            \(InlineChart.figure(DebtChart.svg(summary: summary, handle: handle), caption: debtCaption, kind: "debt"))
            """
        let rows = summary.buckets.map { bucket -> HTML in
            let empty = bucket.trackedNights == 0
            let mark: HTML = bucket.isBelowMinimum ? " class=\"below-minimum\"" : ""
            return """
                <tr\(mark)><th scope="row">\(ReportFormat.bucketLabel(bucket.range, horizon: horizon))</th>\
                <td>\(bucket.trackedNights)</td><td>\(ReportFormat.hours(bucket.averageAsleepSeconds))</td>\
                <td>\(empty ? "-" : ReportFormat.hours(bucket.debtSeconds))</td>\
                <td>\(ReportFormat.hours(bucket.cumulativeDebtSeconds))</td></tr>
                """
        }
        section += """
            <details class="chart-table"><summary>The numbers behind the charts</summary>
            <div class="table-scroll"><table>
            <thead><tr><th scope="col">Wake \(bucket)</th><th scope="col">Nights</th>\
            <th scope="col">Average asleep</th><th scope="col">Shortfall</th><th scope="col">Cumulative debt</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody>
            </table></div>
            </details>
            </section>

            """
        return section
    }
}
