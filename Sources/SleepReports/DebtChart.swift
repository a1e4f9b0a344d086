public import SleepCore

/// The debt chart: one bar per bucket of its shortfall against the target, and the
/// running cumulative debt as a line, on one hour axis.
public enum DebtChart {
    /// The SVG for `summary` of user `handle`.
    public static func svg(summary: Summary, handle: String) -> String {
        let buckets = summary.buckets
        let maximum = Double(buckets.map { max($0.debtSeconds, $0.cumulativeDebtSeconds) }.max() ?? 0) / 3600
        var chart = ChartSVG(maximumHours: max(1, maximum * 1.05))
        for (index, bucket) in buckets.enumerated() {
            let slot = chart.slot(index, of: buckets.count)
            let hours = Double(bucket.debtSeconds) / 3600
            let top = chart.y(hours: hours)
            chart.rect(
                x: slot.x + slot.width * 0.15, y: top, width: slot.width * 0.7, height: chart.y(hours: 0) - top,
                fill: ChartSVG.Palette.debt, cssClass: "debt-bar",
                title:
                    "\(ReportFormat.bucketLabel(bucket.range, horizon: summary.horizon)): \(ReportFormat.hours(bucket.debtSeconds)) short, \(bucket.trackedNights) nights"
            )
        }
        chart.polyline(
            buckets.enumerated().map { index, bucket in
                let slot = chart.slot(index, of: buckets.count)
                return (slot.x + slot.width / 2, chart.y(hours: Double(bucket.cumulativeDebtSeconds) / 3600))
            }, stroke: ChartSVG.Palette.cumulative, cssClass: "cumulative-line")
        chart.slotLabels(buckets.map { ChartSVG.axisLabel($0.range, horizon: summary.horizon) })
        chart.addLegend(ChartSVG.Palette.debt, "Shortfall per \(ReportFormat.bucketName(summary.horizon))")
        chart.addLegend(ChartSVG.Palette.cumulative, "Cumulative debt", isLine: true)
        return chart.rendered(
            title:
                "\(handle): \(summary.horizon.rawValue) sleep debt as of \(summary.asOf) (\(ReportFormat.hours(summary.debt.debtSeconds)), \(summary.debt.severity.rawValue))",
            yTitle: "Sleep debt (hours)", xTitle: "Wake \(ReportFormat.bucketName(summary.horizon))")
    }
}
