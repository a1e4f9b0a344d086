public import SleepCore
import SleepFixtures
import WebPages

/// Real summaries for the pages: ten years of generated nights of one person in
/// Europe/Berlin (Apple Watch stages, trips, missing nights), built by SleepCore's own
/// night builder and summary builder, as the rollup does. For WebPagesTests and the
/// `web-pages-preview` tool (docs/web-pages.md, "Looking at the pages").
public enum WebFixtures {
    /// The as-of day of every summary here.
    public static let asOf = LocalDate(year: 2025, month: 3, day: 16)

    /// Ten years of nights up to `asOf` (the samples run through it, so its night is there).
    public static let richNights: [Night] = {
        let first = LocalDate(year: 2015, month: 3, day: 1)
        let samples = SleepStreamGenerator(seed: 42).samples(from: first, through: asOf)
        return NightBuilder().build(from: samples, userTimeZoneIdentifier: "Europe/Berlin").nights
    }()

    /// The rich summary of `horizon` as of `day`.
    public static func rich(_ horizon: Horizon, asOf day: LocalDate = asOf) -> Summary {
        SummaryBuilder(nights: richNights).summary(horizon: horizon, asOf: day)
    }

    /// The stored nights of `summary`'s window, as the server passes them to the page.
    public static func windowNights(_ summary: Summary, from nights: [Night] = richNights) -> [Night] {
        nights.filter { summary.window.contains($0.wakeDay) }
    }

    /// Three nights only: the last three of the rich set before `asOf`.
    public static let sparseNights: [Night] = Array(richNights.filter { $0.wakeDay <= asOf }.suffix(3))

    /// The sparse summary (weekly).
    public static var sparse: Summary { SummaryBuilder(nights: sparseNights).summary(horizon: .weekly, asOf: asOf) }

    /// A rendered dashboard document for `summary`.
    public static func dashboard(
        _ summary: Summary, nights: [Night]? = nil, handle: String = "anna", workDays: WorkDays = .mondayToFriday
    ) -> String {
        WebLayout.render(
            DashboardView.page(
                handle: handle, horizon: summary.horizon,
                content: .summary(summary, windowNights: nights ?? windowNights(summary)), workDays: workDays),
            signedIn: handle, csrfToken: "csrf-test-token")
    }
}
