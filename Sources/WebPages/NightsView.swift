public import SleepCore
import SleepReports

/// The nights table for a chosen range (issue 14, item 4), with the CSV download of the same
/// range (`/nights.csv?from=&to=`, the admin tool's nights CSV: ``csv(_:)``).
public enum NightsView {
    /// The nights waking from `from` through `to` (in wake-day order), with the range form;
    /// each night's confidence (by wake day) as its mark and value, `-` for a night the
    /// rollup has not assessed yet.
    public static func page(
        nights: [Night], from: LocalDate, to: LocalDate, confidences: [LocalDate: NightConfidence] = [:],
        notice: WebNotice? = nil
    ) -> WebPage {
        let query = "?from=\(from)&to=\(to)"
        var body: HTML = """
            <h1>Nights</h1>
            \(notice.html)<form class="range-form" method="get" action="\(WebPaths.nights)">
            <div class="field"><label for="nights-from">From (wake day)</label>\
            <input type="date" id="nights-from" name="from" value="\(from)" required></div>
            <div class="field"><label for="nights-to">Through</label>\
            <input type="date" id="nights-to" name="to" value="\(to)" required></div>
            <button type="submit">Show</button>
            </form>

            """
        guard !nights.isEmpty else {
            body += "<p class=\"card\">No night stored that woke from \(from) through \(to).</p>\n"
            return WebPage(title: "Nights", current: .nights, body: body)
        }
        let asleep = nights.reduce(Int64(0)) { $0 + $1.asleepSeconds }
        let average = Int64((Double(asleep) / Double(nights.count)).rounded())
        body += """
            <p>\(ReportFormat.nights(nights.count)) from \(from) through \(to), \(ReportFormat.hours(average)) asleep \
            on average. Times are each night's local time. \
            <a href="\(WebPaths.nightsCSV + query)" download="\(csvFileName(from: from, to: to))">Download as CSV</a></p>
            <div class="table-scroll"><table class="nights">
            <thead><tr><th scope="col">Wake day</th><th scope="col">Bed</th><th scope="col">Asleep at</th>\
            <th scope="col">Wake</th><th scope="col">Asleep</th><th scope="col">In bed</th>\
            <th scope="col">Efficiency</th><th scope="col">Deep</th><th scope="col">REM</th><th scope="col">Core</th>\
            <th scope="col">Wake-ups</th><th scope="col">Zone</th><th scope="col">Source</th>\
            <th scope="col">Confidence</th></tr></thead>
            <tbody>

            """
        for night in nights {
            let zone = night.timeZoneIdentifier
            let staged = night.hasStageData
            func clock(_ instant: Int64) -> String { ReportFormat.localClock(instant, zone: zone) }
            func stage(_ seconds: Int64) -> String { staged ? ReportFormat.hours(seconds) : "-" }
            let confidence: HTML =
                confidences[night.wakeDay].map { "\(WebFormat.mark($0.mark)) \(PersonalText.decimal($0.value))" } ?? "-"
            body += """
                <tr><th scope="row">\(night.wakeDay)</th><td>\(clock(night.bedtime))</td><td>\(clock(night.onset))</td>\
                <td>\(clock(night.wake))</td><td>\(ReportFormat.hours(night.asleepSeconds))</td>\
                <td>\(ReportFormat.hours(night.timeInBedSeconds))</td><td>\(ReportFormat.percent(night.efficiency))</td>\
                <td>\(stage(night.stages.deep))</td><td>\(stage(night.stages.rem))</td><td>\(stage(night.stages.core))</td>\
                <td>\(night.wakeUps)</td><td>\(zone)</td><td>\(night.source)</td><td>\(confidence)</td></tr>

                """
        }
        body += "</tbody>\n</table></div>\n"
        return WebPage(title: "Nights", current: .nights, body: body)
    }

    /// The nights as CSV, exactly as `sleepledger-admin nights --format csv` writes them:
    /// every field, local times in each night's zone, cells a spreadsheet would run as
    /// formulas neutralised.
    public static func csv(_ nights: [Night], confidences: [LocalDate: NightConfidence] = [:]) -> String {
        NightsCSV.nights(nights, confidences: confidences).rendered
    }

    /// The CSV's `Content-Type`.
    public static let csvContentType = "text/csv; charset=utf-8"

    /// The file name a download of the range gets: `nights-2025-03-01-to-2025-03-17.csv`.
    public static func csvFileName(from: LocalDate, to: LocalDate) -> String { "nights-\(from)-to-\(to).csv" }
}
