public import SleepCore

/// The duration chart. Daily and weekly: one bar per night from bedtime (at 0) to wake,
/// its stage segments coloured where they happened; longer horizons: one bar per bucket
/// of the average asleep time. The goal band from Minimum Acceptable to Target Sleep is
/// shaded; bars under the minimum are drawn in (or framed by) the warning colour.
public enum DurationChart {
    /// The SVG for `summary` of user `handle`; `nights` are the stored nights of its window
    /// (used for daily and weekly).
    public static func svg(summary: Summary, nights: [Night], handle: String) -> String {
        let band = summary.goalBand
        let perNight = summary.horizon == .daily || summary.horizon == .weekly
        let shown: [Night]
        let slots: [LocalDate]
        if summary.horizon == .daily {
            let last = nights.last { $0.wakeDay == summary.lastNight?.wakeDay }
            shown = last.map { [$0] } ?? []
            slots = shown.map(\.wakeDay)
        } else {
            shown = nights
            slots = (0..<summary.window.dayCount).map { summary.window.first.adding(days: $0) }
        }
        let longest =
            perNight
            ? Double(shown.map(\.timeInBedSeconds).max() ?? 0)
            : Double(summary.buckets.compactMap(\.averageAsleepSeconds).max() ?? 0)
        var chart = ChartSVG(maximumHours: max(Double(band.targetSeconds) / 3600 + 1, longest / 3600 + 0.5))
        let bandTop = chart.y(hours: Double(band.targetSeconds) / 3600)
        chart.rect(
            x: chart.left, y: bandTop, width: chart.plotWidth,
            height: chart.y(hours: Double(band.minimumSeconds) / 3600) - bandTop, fill: ChartSVG.Palette.band,
            cssClass: "goal-band", opacity: 0.45,
            title: "Goal band: \(ReportFormat.hours(band.minimumSeconds)) to \(ReportFormat.hours(band.targetSeconds))")

        if perNight {
            drawNights(shown, in: slots, band: band, on: &chart)
        } else {
            drawBucketAverages(summary, on: &chart)
        }
        chart.addLegend(ChartSVG.Palette.warning, "Below minimum")
        chart.addLegend(
            ChartSVG.Palette.band,
            "Goal band \(ReportFormat.hours(band.minimumSeconds))-\(ReportFormat.hours(band.targetSeconds))")
        return chart.rendered(
            title: "\(handle): \(summary.horizon.rawValue) sleep duration as of \(summary.asOf)",
            yTitle: perNight ? "Hours from bedtime" : "Average hours asleep",
            xTitle: perNight ? "Wake day" : "Wake \(ReportFormat.bucketName(summary.horizon))")
    }

    /// One bar a wake day in `slots`: the night from bedtime, in bed, awake and its stages,
    /// outlined when below the goal band's minimum; then the slot labels and the legend.
    static func drawNights(_ shown: [Night], in slots: [LocalDate], band: GoalBand, on chart: inout ChartSVG) {
        for (index, day) in slots.enumerated() {
            guard let night = shown.first(where: { $0.wakeDay == day }) else { continue }
            drawNight(night, slot: chart.slot(index, of: slots.count), band: band, on: &chart)
        }
        chart.slotLabels(slots.map(\.description))
        chart.addLegend(ChartSVG.Palette.deep, "Deep")
        chart.addLegend(ChartSVG.Palette.rem, "REM")
        chart.addLegend(ChartSVG.Palette.core, "Core")
        chart.addLegend(ChartSVG.Palette.awake, "Awake")
        chart.addLegend(ChartSVG.Palette.unstaged, "Asleep (unstaged)")
        chart.addLegend(ChartSVG.Palette.inBed, "In bed, before sleep")
    }

    /// The bar of one night in its slot.
    static func drawNight(
        _ night: Night, slot: (x: Double, width: Double), band: GoalBand, on chart: inout ChartSVG
    ) {
        let x = slot.x + slot.width * 0.2
        let barWidth = slot.width * 0.6
        let base = chart.y(hours: 0)
        func y(_ instant: Int64) -> Double { chart.y(hours: Double(instant - night.bedtime) / 3600) }
        chart.rect(
            x: x, y: y(night.wake), width: barWidth, height: base - y(night.wake), fill: ChartSVG.Palette.inBed,
            cssClass: "in-bed-bar",
            title:
                "\(night.wakeDay): \(ReportFormat.hours(night.asleepSeconds)) asleep, \(ReportFormat.hours(night.timeInBedSeconds)) in bed"
        )
        // Awake after falling asleep: what the asleep segments leave uncovered.
        chart.rect(
            x: x, y: y(night.wake), width: barWidth, height: y(night.onset) - y(night.wake),
            fill: ChartSVG.Palette.awake, cssClass: "stage-awake")
        if night.stageSegments.isEmpty {
            for span in night.asleepIntervals {
                chart.rect(
                    x: x, y: y(span.end), width: barWidth, height: y(span.start) - y(span.end),
                    fill: ChartSVG.Palette.unstaged, cssClass: "stage-unstaged")
            }
        } else {
            for segment in night.stageSegments {
                let (color, name) = colour(segment.stage)
                chart.rect(
                    x: x, y: y(segment.span.end), width: barWidth,
                    height: y(segment.span.start) - y(segment.span.end),
                    fill: color, cssClass: "stage-\(name)")
            }
        }
        if band.isBelowMinimum(asleepSeconds: Double(night.asleepSeconds)) {
            chart.rect(
                x: x, y: y(night.wake), width: barWidth, height: base - y(night.wake), fill: "none",
                cssClass: "below-minimum", stroke: ChartSVG.Palette.warning, strokeWidth: 3)
            chart.rect(
                x: x, y: y(night.wake) - 8, width: barWidth, height: 6, fill: ChartSVG.Palette.warning,
                cssClass: "below-minimum-cap")
        }
    }

    /// One bar a bucket of `summary`: its average asleep, red when below the minimum; then
    /// the slot labels and the legend.
    static func drawBucketAverages(_ summary: Summary, on chart: inout ChartSVG) {
        for (index, bucket) in summary.buckets.enumerated() {
            guard let average = bucket.averageAsleepSeconds else { continue }
            let slot = chart.slot(index, of: summary.buckets.count)
            let top = chart.y(hours: Double(average) / 3600)
            chart.rect(
                x: slot.x + slot.width * 0.15, y: top, width: slot.width * 0.7, height: chart.y(hours: 0) - top,
                fill: bucket.isBelowMinimum ? ChartSVG.Palette.warning : ChartSVG.Palette.average,
                cssClass: bucket.isBelowMinimum ? "average-bar below-minimum" : "average-bar",
                title:
                    "\(ReportFormat.bucketLabel(bucket.range, horizon: summary.horizon)): \(ReportFormat.hours(average)) average over \(bucket.trackedNights) nights"
            )
        }
        chart.slotLabels(summary.buckets.map { ChartSVG.axisLabel($0.range, horizon: summary.horizon) })
        chart.addLegend(ChartSVG.Palette.average, "Average asleep")
    }

    static func colour(_ stage: SleepStage) -> (String, String) {
        switch stage {
        case .deep: return (ChartSVG.Palette.deep, "deep")
        case .rem: return (ChartSVG.Palette.rem, "rem")
        case .core: return (ChartSVG.Palette.core, "core")
        case .awake: return (ChartSVG.Palette.awake, "awake")
        default: return (ChartSVG.Palette.unstaged, "unstaged")
        }
    }
}
