import Foundation
import SleepCore
import SleepReports
import Testing
import WebPageFixtures

@testable import WebPages

/// The dashboard shows the figures of its Summary: expectations are computed here from the
/// Summary value (and, for clock times, from Foundation's time zones), not copied from the
/// page.
@Suite("Dashboard")
struct DashboardTests {
    /// The card whose class list holds `name`, as its own document.
    static func card(_ html: String, _ name: String) throws -> HTMLScan {
        let start = try #require(html.range(of: "<section class=\"card \(name)"))
        let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
        return HTMLScan(String(html[start.lowerBound..<end.upperBound]))
    }

    /// `HH:MM` and the `UTC+hh:mm` offset of `instant` in `zone`, from Foundation.
    static func clock(_ instant: Int64, _ zone: String) throws -> (clock: String, offset: String) {
        let timeZone = try #require(TimeZone(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: TimeInterval(instant))
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let offset = timeZone.secondsFromGMT(for: date)
        return (
            String(format: "%02d:%02d", parts.hour ?? -1, parts.minute ?? -1),
            String(format: "UTC%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
        )
    }

    @Test("the debt card: debt and severity, nightly average, rolling debt with its severity and the recovery plan")
    func debtCard() throws {
        let summary = WebFixtures.rich(.weekly)
        let card = try Self.card(WebFixtures.dashboard(summary), "debt")
        let debt = summary.debt
        #expect(card.elements(withClass: "big").first?.textAfter == SleepDuration.format(seconds: debt.debtSeconds))
        #expect(
            card.elements("section").first?.attributes["class"]?.contains("severity-\(debt.severity.rawValue)") == true)
        let badges = card.elements(withClass: "badge").map(\.textAfter)
        #expect(badges.first == debt.severity.rawValue.capitalized)
        let text = card.text
        let asleep = try #require(debt.averageAsleepSeconds)
        let balance = try #require(debt.averageNightlyBalanceSeconds)
        #expect(text.contains("Over \(debt.trackedNights) nights"))
        #expect(
            text.contains(
                "\(SleepDuration.format(seconds: asleep)) asleep, \(SleepDuration.format(seconds: abs(balance))) "
                    + (balance < 0 ? "short of" : "over") + " your target a night"))
        let rolling = try #require(summary.rollingDebt)
        #expect(text.contains("Rolling 14 nights\(SleepDuration.format(seconds: rolling.debtSeconds)) "))
        #expect(badges.dropFirst().first == rolling.severity.rawValue.capitalized)
        #expect(
            text.contains("over \(rolling.trackedNights) nights from \(rolling.window.first) to \(rolling.window.last)")
        )
        let plans = card.elements("li").map(\.textAfter)
        #expect(plans.count == rolling.recovery.count)
        for (plan, line) in zip(rolling.recovery, plans) {
            let nights = try #require(plan.nightsNeeded)
            #expect(
                line
                    == "Sleep \(SleepDuration.format(seconds: plan.extraSeconds)) more than your target: \(nights) night\(nights == 1 ? "" : "s")"
            )
        }
    }

    @Test("with the estimated need as target, the debt card measures against it and says so, the plan too")
    func debtCardAgainstNeed() throws {
        var summary = WebFixtures.rich(.weekly)
        summary.estimatedNeed = SleepNeedEstimate(
            needSeconds: summary.goalBand.targetSeconds, lowSeconds: 7 * 3600, highSeconds: 9 * 3600,
            method: .freeNights, nightsUsed: 20, effectiveNights: 20, freeNights: 20, workNights: 40,
            habitualSeconds: nil, hiddenDebtSeconds: nil)
        let card = try Self.card(WebFixtures.dashboard(summary), "debt")
        let text = card.text
        #expect(
            text.contains(
                "against your estimated need (\(SleepDuration.format(seconds: summary.goalBand.targetSeconds)) as of "
                    + "\(summary.asOf); each night against the need estimated from the nights before it)"))
        #expect(!text.contains("target"), "\(text)")
        let balance = try #require(summary.debt.averageNightlyBalanceSeconds)
        #expect(text.contains((balance < 0 ? "short of" : "over") + " your estimated need a night"))
        let plans = card.elements("li").map(\.textAfter)
        #expect(!plans.isEmpty && plans.allSatisfy { $0.contains("more than your estimated need: ") })
        let charts = WebFixtures.dashboard(summary)
        #expect(charts.contains("estimated need, and nights under the minimum") && !charts.contains(" target, and"))
    }

    @Test(
        "free days are named from the work days",
        arguments: [
            ([1, 2, 3, 4, 5], "Saturday and Sunday mornings"), ([1, 2, 3, 4], "Friday, Saturday and Sunday mornings"),
            ([7, 1, 2, 3, 4], "Friday and Saturday mornings"), ([1, 2, 3, 4, 5, 6], "Sunday mornings"),
            ([1, 2, 3, 4, 5, 6, 7], "no morning"),
            ([], "Monday, Tuesday, Wednesday, Thursday, Friday, Saturday and Sunday mornings"),
        ])
    func freeMornings(workDays: [Int], expected: String) {
        #expect(WebFormat.freeMornings(WorkDays(isoWeekdays: workDays)) == expected)
    }

    @Test("a Sunday-to-Thursday week: the regularity and patterns cards name Friday and Saturday as free")
    func otherWorkWeek() throws {
        let summary = WebFixtures.rich(.monthly)
        let page = WebFixtures.dashboard(summary, workDays: WorkDays(isoWeekdays: [7, 1, 2, 3, 4]))
        let jetLag = try #require(summary.midSleepJetLag)
        let regularity = try Self.card(page, "regularity").text
        #expect(regularity.contains("(Friday and Saturday mornings, \(ReportFormat.nights(jetLag.freeDayNights)))"))
        #expect(!page.contains("Saturday and Sunday"))
        var patterns = try #require(summary.patterns)
        patterns.socialJetLag = SleepPatterns.SocialJetLag(
            weekendAverageHours: 8.6, workdayAverageHours: 6.9, differenceHours: 1.7, weekendNights: 2, workdayNights: 5
        )
        let findings = DashboardView.patternFindings(patterns, workDays: WorkDays(isoWeekdays: [7, 1, 2, 3, 4]))
        #expect(
            findings.first?.text.hasPrefix("You sleep 1.7 h more on nights before Friday and Saturday mornings") == true
        )
    }

    @Test("the score card: overall, grade, the four components as meters in the spec's order")
    func scoreCard() throws {
        let summary = WebFixtures.rich(.weekly)
        let card = try Self.card(WebFixtures.dashboard(summary), "score")
        let score = summary.score
        #expect(card.elements(withClass: "big").first?.textAfter == String(score.overall))
        #expect(card.elements(withClass: "grade").first?.textAfter == score.grade.rawValue)
        let components = try #require(score.components)
        let meters = card.elements("meter")
        #expect(
            meters.map { Int($0.attributes["value"] ?? "") } == [
                components.duration, components.efficiency, components.consistency, components.stages,
            ])
        #expect(meters.allSatisfy { $0.attributes["min"] == "0" && $0.attributes["max"] == "100" })
        #expect(
            card.elements(withClass: "value").map(\.textAfter)
                == [
                    components.duration, components.efficiency, components.consistency, components.stages,
                ].map(String.init))
    }

    @Test("last night: asleep, bed and wake in the night's own offset, efficiency, the stage timeline and shares")
    func lastNight() throws {
        let summary = WebFixtures.rich(.weekly)
        let last = try #require(summary.lastNight)
        #expect(last.stageSegments.contains { $0.stage == .deep })
        let card = try Self.card(WebFixtures.dashboard(summary), "last-night")
        #expect(card.elements(withClass: "big").first?.textAfter == SleepDuration.format(seconds: last.asleepSeconds))
        let bed = try Self.clock(last.bedtime, last.timeZoneIdentifier)
        let wake = try Self.clock(last.wake, last.timeZoneIdentifier)
        #expect(bed.offset == wake.offset)
        #expect(
            card.text.contains("In bed \(bed.clock) to \(wake.clock) (\(bed.offset), \(last.timeZoneIdentifier))"))
        #expect(card.text.contains("efficiency \(Int((last.efficiency * 100).rounded()))%"))
        let times = card.elements("time").map { $0.attributes["datetime"] }
        #expect(times == [last.bedtimeLocal, last.wakeLocal])
        // The timeline: every staged second drawn in its lane, nothing outside bed to wake.
        let svg = try #require(card.elements("svg").first)
        #expect(svg.attributes["role"] == "img" && svg.attributes["viewbox"] == "0 0 1000 40")
        let span = Double(last.wake - last.bedtime)
        for (stage, lane) in [("deep", 3.0), ("rem", 1.0), ("core", 2.0)] {
            let rects = card.elements(withClass: "st-\(stage)").filter { $0.name == "rect" }
            let expected = last.stageSegments.filter { $0.stage.rawValue == stage }.map { Double($0.span.duration) }
            let drawn = rects.compactMap { Double($0.attributes["width"] ?? "") }.reduce(0, +)
            #expect(abs(drawn - expected.reduce(0, +) / span * 1000) < Double(rects.count) * 0.1 + 0.1, "\(stage)")
            #expect(rects.allSatisfy { Double($0.attributes["y"] ?? "") == lane * 10 + 1 }, "\(stage)")
        }
        let proportions = last.stageProportions
        #expect(card.elements(withClass: "swatch").count == 4)
        for share in [
            "Deep \(ReportFormat.percent(proportions.deep))", "REM \(ReportFormat.percent(proportions.rem))",
            "Core \(ReportFormat.percent(proportions.core))", "Awake \(ReportFormat.percent(proportions.awake))",
        ] {
            #expect(card.text.contains(share), "\(share)")
        }
    }

    @Test("last night across a change to summer time: bed and wake each with their own offset")
    func lastNightAcrossDaylightSaving() throws {
        // A generated night in Europe/Berlin whose bedtime is still winter time and wake summer time.
        let night = try #require(
            WebFixtures.richNights.last {
                $0.timeZoneIdentifier == "Europe/Berlin"
                    && (try? Self.clock($0.bedtime, "Europe/Berlin").offset) == "UTC+01:00"
                    && (try? Self.clock($0.wake, "Europe/Berlin").offset) == "UTC+02:00"
            })
        let summary = WebFixtures.rich(.weekly, asOf: night.wakeDay)
        let last = try #require(summary.lastNight)
        #expect(last.wakeDay == night.wakeDay)
        let bed = try Self.clock(last.bedtime, last.timeZoneIdentifier)
        let wake = try Self.clock(last.wake, last.timeZoneIdentifier)
        let card = try Self.card(WebFixtures.dashboard(summary), "last-night")
        #expect(card.text.contains("In bed \(bed.clock) (UTC+01:00) to \(wake.clock) (UTC+02:00), Europe/Berlin"))
    }

    @Test("this week: average, nights at or above the minimum, efficiency, and the window's trend")
    func week() throws {
        let summary = WebFixtures.rich(.weekly)
        let week = summary.weekly
        let card = try Self.card(WebFixtures.dashboard(summary), "week")
        let facts = Dictionary(
            uniqueKeysWithValues: zip(card.elements("dt").map(\.textAfter), card.elements("dd").map(\.textAfter)))
        #expect(facts["Average asleep"] == SleepDuration.format(seconds: try #require(week.averageAsleepSeconds)))
        let rate = try #require(week.complianceRate)
        #expect(
            facts["At or above your 7h minimum"]
                == "\(week.compliantNights) of \(week.trackedNights) nights (\(Int((rate * 100).rounded()))%)")
        #expect(facts["Efficiency"] == "\(Int((try #require(week.averageEfficiency) * 100).rounded()))%")
        let trend = try #require(summary.trend)
        #expect(card.elements(withClass: "trend").first?.textAfter == trend.direction.rawValue.capitalized)
        #expect(card.text.contains(String(format: "%.1f h", abs(trend.differenceHours))))
    }

    @Test("patterns: each triggered one with its figures and a sentence; none, or too few nights, said so")
    func patterns() throws {
        var summary = WebFixtures.rich(.weekly)
        summary.patterns = SleepPatterns(
            trackedNights: 7,
            socialJetLag: .init(
                weekendAverageHours: 8.6, workdayAverageHours: 6.9, differenceHours: 1.7, weekendNights: 2,
                workdayNights: 5),
            lateBedtimes: .init(lateNights: 4, trackedNights: 7, threshold: 2),
            lowDeepSleep: .init(meanFraction: 0.083, threshold: 0.10, stagedNights: 6),
            lowREM: .init(meanFraction: 0.12, threshold: 0.15, stagedNights: 6))
        let card = try Self.card(WebFixtures.dashboard(summary), "patterns")
        #expect(
            card.elements("h3").map(\.textAfter) == [
                "Social jet lag", "Late bedtimes", "Low deep sleep", "Low REM sleep",
            ])
        let text = card.text
        for figure in [
            "1.7 h more", "(8.6 h over 2 nights)", "(6.9 h over 5 nights)", "On 4 of 7 nights",
            "Deep sleep was 8% of your sleep on average over 6 nights with stage data, below 10%",
            "REM sleep was 12% of your sleep on average over 6 nights with stage data, below 15%",
        ] {
            #expect(text.contains(figure), "\(figure)")
        }

        summary.patterns = SleepPatterns(trackedNights: 7)
        #expect(
            try Self.card(WebFixtures.dashboard(summary), "patterns").text.contains("Nothing stands out over 7 nights"))
        summary.patterns = nil
        #expect(
            try Self.card(WebFixtures.dashboard(summary), "patterns").text.contains(
                "Patterns need at least 5 tracked nights in this window; it has \(summary.debt.trackedNights) nights."))
    }

    @Test("regularity: the SRI and mid-sleep social jet lag with both groups' clock times")
    func regularity() throws {
        let summary = WebFixtures.rich(.monthly)
        let card = try Self.card(WebFixtures.dashboard(summary), "regularity")
        let regularity = try #require(summary.regularity)
        let jetLag = try #require(summary.midSleepJetLag)
        let bigs = card.elements(withClass: "big").map(\.textAfter)
        #expect(bigs == [String(Int(regularity.index.rounded())), String(format: "%.1f h", jetLag.differenceHours)])
        func clock(_ seconds: Int64) -> String { String(format: "%02d:%02d", seconds / 3600, seconds % 3600 / 60) }
        #expect(card.text.contains("at \(clock(jetLag.freeDayMidSleepSeconds)) on free days"))
        #expect(card.text.contains("at \(clock(jetLag.workDayMidSleepSeconds)) on work days"))
        #expect(card.text.contains("(Saturday and Sunday mornings, \(ReportFormat.nights(jetLag.freeDayNights)))"))
        #expect(card.text.contains("on work days (\(ReportFormat.nights(jetLag.workDayNights)))"))
    }

    @Test(
        "every horizon: the switch as plain links, the charts of SleepReports inline, the numbers as a table",
        arguments: Horizon.allCases)
    func horizon(horizon: Horizon) throws {
        let summary = WebFixtures.rich(horizon)
        let nights = WebFixtures.windowNights(summary)
        let html = WebFixtures.dashboard(summary, nights: nights)
        let scan = HTMLScan(html)
        #expect(scan.elements("nav").contains { $0.attributes["aria-label"] == "Horizon" })
        let switchLinks = scan.elements("a").filter { ($0.attributes["href"] ?? "").hasPrefix("/?horizon=") }
        #expect(switchLinks.map { $0.attributes["href"] ?? "" } == Horizon.allCases.map { "/?horizon=\($0.rawValue)" })
        #expect(
            switchLinks.filter { $0.attributes["aria-current"] == "page" }.map { $0.attributes["href"] }
                == ["/?horizon=\(horizon.rawValue)"])
        // The charts are the admin tool's bytes from <svg on, with role and class added.
        for chart in [
            DurationChart.svg(summary: summary, nights: nights, handle: "anna"),
            DebtChart.svg(summary: summary, handle: "anna"),
        ] {
            let body = try #require(chart.range(of: "<svg")).upperBound
            #expect(html.contains("<svg class=\"chart-svg\" role=\"img\"" + chart[body...]))
        }
        let charts = scan.elements(withClass: "chart-svg")
        #expect(charts.count == 2 && charts.allSatisfy { $0.attributes["viewbox"] == "0 0 900 460" })
        #expect(!html.contains("<?xml"))
        let rows = scan.elements("tr").count - 1
        #expect(rows == summary.buckets.count)
    }

    @Test("few nights: what each card needs is said instead of a number")
    func sparse() throws {
        let summary = WebFixtures.sparse
        #expect(summary.debt.trackedNights == 3 && summary.rollingDebt == nil && summary.patterns == nil)
        let html = WebFixtures.dashboard(summary, nights: WebFixtures.sparseNights)
        #expect(try Self.card(html, "debt").text.contains("Needs at least 5 tracked nights in the last 14 days"))
        #expect(
            try Self.card(html, "debt").elements(withClass: "big").first?.textAfter
                == SleepDuration.format(seconds: summary.debt.debtSeconds))
        #expect(try Self.card(html, "patterns").text.contains("it has 3 nights"))
        #expect(try Self.card(html, "score").elements("meter").count == 4)
    }

    @Test("a window without nights: the page says so and points to a longer horizon")
    func emptyWindow() throws {
        let summary = WebFixtures.rich(.weekly, asOf: LocalDate(year: 2026, month: 1, day: 10))
        #expect(summary.debt.trackedNights == 0 && summary.score.components == nil)
        let html = WebFixtures.dashboard(summary, nights: [])
        #expect(html.contains("No night woke between 2026-01-04 and 2026-01-10."))
        #expect(try Self.card(html, "score").text.contains("No tracked night in this window to score."))
        #expect(try Self.card(html, "last-night").text.contains("No night woke on 2026-01-10 or the day before."))
    }

    @Test(
        "no summary: why, and what to do next (upload, Health Auto Export), never an empty page",
        arguments: DashboardAbsence.allCases)
    func absent(absence: DashboardAbsence) throws {
        let page = DashboardView.page(handle: "anna", horizon: .monthly, content: .absent(absence))
        let scan = HTMLScan(WebLayout.render(page, signedIn: "anna", csrfToken: "t"))
        #expect(scan.elements("svg").isEmpty)
        #expect(scan.elements("h2").first?.textAfter == absence.heading)
        let hrefs = scan.elements("a").compactMap { $0.attributes["href"] }
        if absence == .noStoredSummary {
            #expect(hrefs.contains("/?horizon=weekly"))
            #expect(scan.text.contains("computed after your next import"))
        } else {
            #expect(hrefs.contains("/upload") && hrefs.contains("/tokens"))
            #expect(scan.text.contains("Export All Health Data"))
            #expect(scan.text.contains("Health Auto Export"))
        }
    }

    @Test("rollup pending and stored time are shown when given")
    func status() {
        let summary = WebFixtures.rich(.weekly)
        let page = DashboardView.page(
            handle: "anna", horizon: .weekly, content: .summary(summary, windowNights: []), isRollupPending: true,
            storedAt: 1_742_190_000)
        #expect(page.body.rendered.contains("waiting to be summarised"))
        #expect(page.body.rendered.contains("Computed by the rollup at 2025-03-17 05:40 UTC."))
        #expect(page.scripts.isEmpty && page.current == .dashboard)
    }

    @Test("page weight: a rich ten-year dashboard with its stylesheet stays under 100 KB at every horizon")
    func pageWeight() {
        var heaviest = 0
        for horizon in Horizon.allCases {
            let summary = WebFixtures.rich(horizon)
            let page = DashboardView.page(
                handle: "anna", horizon: horizon,
                content: .summary(summary, windowNights: WebFixtures.windowNights(summary)),
                isRollupPending: true, storedAt: 1_742_190_000)
            let html = WebLayout.render(page, signedIn: "anna", csrfToken: String(repeating: "x", count: 43))
            let total =
                html.utf8.count + WebAssets.stylesheet.bytes.count + WebAssets.icon.bytes.count
                + page.scripts.map(\.bytes.count).reduce(0, +)
            heaviest = max(heaviest, total)
            #expect(total < 100_000, "\(horizon): \(total) bytes")
        }
        #expect(heaviest > 10_000)
    }
}
