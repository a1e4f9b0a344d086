import SleepCore
import SleepReports
import Testing

/// The charts as docs/admin.md ("Charts") describes them: standalone SVG 1.1 at 900x460 with
/// a title, axis titles, an hour axis, a legend and tooltips; the debt chart an orange bar per
/// bucket of its shortfall and the cumulative debt as a dark line with points; the duration
/// chart per night (daily, weekly) or per bucket (longer), under the goal band, nights under
/// the minimum framed in red. Values come from ``ReportFixtures``' worked-out week.
@Suite("DurationChart and DebtChart")
struct ChartTests {
    /// A handle that tries to end the element and to reorder or clear what is shown.
    static let hostileHandle = "</title><script>alert(1)</script>&\u{1B}[2J\u{202E}"
    /// How the hostile handle reads once the document is parsed: the markup as text, the
    /// controls as their stand-ins.
    static let shownHandle = "</title><script>alert(1)</script>&␛[2J�"

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case debt, duration
        var testDescription: String { rawValue }

        func svg(_ summary: Summary, handle: String) -> String {
            switch self {
            case .debt: return DebtChart.svg(summary: summary, handle: handle)
            case .duration:
                return DurationChart.svg(summary: summary, nights: ReportFixtures.nights, handle: handle)
            }
        }
    }

    @Test(
        "every chart of every horizon: one SVG 1.1 document of 900x460 with its title, axis titles and legend",
        arguments: Kind.allCases, Horizon.allCases)
    func document(kind: Kind, horizon: Horizon) throws {
        let svg = SVGDocument(kind.svg(ReportFixtures.summary(horizon), handle: "anna"))
        let root = try #require(svg.root)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["version"] == "1.1")
        #expect(root.attributes["width"] == "900" && root.attributes["height"] == "460")
        #expect(root.attributes["viewBox"] == "0 0 900 460")
        #expect(svg.source.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        let title = try #require(svg.elements("title").first).text
        #expect(title.hasPrefix("anna: \(horizon.rawValue) "), "\(title)")
        #expect(title.contains("as of 2025-03-17"), "\(title)")
        #expect(svg.texts.contains(title))
        #expect(svg.texts.contains("0h"))
        #expect(svg.elements(withClass: "legend").count == 1)
    }

    @Test("a hostile handle is text in the title, never markup or a control", arguments: Kind.allCases)
    func escapedHandle(kind: Kind) throws {
        let svg = SVGDocument(kind.svg(ReportFixtures.summary(), handle: Self.hostileHandle))
        #expect(svg.elements("script").isEmpty)
        #expect(!svg.source.contains("<script>") && !svg.source.contains("\u{1B}") && !svg.source.contains("\u{202E}"))
        #expect(try #require(svg.elements("title").first).text.hasPrefix(Self.shownHandle + ": weekly"))
        #expect(svg.texts.contains { $0.hasPrefix(Self.shownHandle) })
    }

    @Test("debt: an orange bar per day as tall as its shortfall, the cumulative line through every day")
    func debt() throws {
        let svg = SVGDocument(DebtChart.svg(summary: ReportFixtures.summary(), handle: "anna"))
        let bars = svg.elements(withClass: "debt-bar")
        #expect(bars.count == 7)
        #expect(bars.allSatisfy { $0.attributes["fill"] == "#e07b39" })
        let heights = bars.map { $0.number("height") ?? -1 }
        let expected = ReportFixtures.expectedBuckets
        // Heights in proportion to the shortfalls (coordinates have one decimal).
        let hourHeight = heights[6] / 3
        for (height, bucket) in zip(heights, expected) {
            #expect(abs(height - Double(bucket.0) / 3600 * hourHeight) < 0.2, "\(heights)")
        }
        #expect(bars[0].tooltip.contains("2025-03-11") && bars[0].tooltip.contains("2h"), "\(bars[0].tooltip)")
        #expect(bars[6].tooltip.contains("2025-03-17") && bars[6].tooltip.contains("3h"), "\(bars[6].tooltip)")
        // The line: a point per day, as high above the axis as the cumulative debt.
        let line = try #require(svg.elements(withClass: "cumulative-line").first)
        #expect(line.name == "polyline" && line.attributes["stroke"] == "#333333")
        let points = svg.elements(withClass: "cumulative-line-point")
        #expect(points.count == 7)
        let axis = try #require(bars[0].number("y")) + heights[0]
        for (point, bucket) in zip(points, expected) {
            let height = axis - (point.number("cy") ?? 0)
            #expect(abs(height - Double(bucket.5) / 3600 * hourHeight) < 0.2, "\(bucket)")
        }
        #expect(svg.texts.contains("Cumulative debt"))
        #expect(svg.texts.contains("2025-03-11") && svg.texts.contains("2025-03-17"))
        #expect(svg.elements("title").first?.text.contains("5h 30m") == true)
    }

    @Test("duration, weekly: a bar per night from bedtime to wake with its stages; the short nights framed in red")
    func durationWeekly() throws {
        let svg = SVGDocument(
            DurationChart.svg(summary: ReportFixtures.summary(), nights: ReportFixtures.nights, handle: "anna"))
        let band = try #require(svg.elements(withClass: "goal-band").first)
        #expect(band.attributes["fill"] == "#8fd19e")
        #expect(band.attributes["fill-opacity"].flatMap(Double.init) == 0.45)
        let inBed = svg.elements(withClass: "in-bed-bar")
        #expect(inBed.count == 4)
        #expect(inBed.allSatisfy { $0.attributes["fill"] == "#d9d9d9" })
        #expect(svg.elements(withClass: "stage-core").allSatisfy { $0.attributes["fill"] == "#4a90d9" })
        #expect(svg.elements(withClass: "stage-deep").allSatisfy { $0.attributes["fill"] == "#1f3b73" })
        #expect(svg.elements(withClass: "stage-core").count == 4 && svg.elements(withClass: "stage-deep").count == 4)
        // Bars from bedtime (0 h): in bed 10 minutes longer than asleep.
        let hourHeight = try #require(band.number("height"))  // the band is 7 h to 8 h: one hour
        for (bar, night) in zip(inBed, ReportFixtures.nights) {
            let hours = Double(night.asleepSeconds + 600) / 3600
            #expect(abs((bar.number("height") ?? 0) - hours * hourHeight) < 0.3, "\(night.wakeDay)")
            #expect(bar.tooltip.hasPrefix("\(night.wakeDay): "), "\(bar.tooltip)")
        }
        // 6 h on 03-11 and 5 h on 03-17 are under the 7 h minimum.
        let frames = svg.elements(withClass: "below-minimum")
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.attributes["stroke"] == "#d62728" })
        #expect(svg.texts.filter { $0.hasPrefix("2025-03-1") }.count == 7)
    }

    @Test("duration, monthly: a bar per week of its average, red under the minimum, the goal band")
    func durationMonthly() throws {
        let summary = ReportFixtures.summary(.monthly)
        let svg = SVGDocument(DurationChart.svg(summary: summary, nights: ReportFixtures.nights, handle: "anna"))
        #expect(svg.elements(withClass: "in-bed-bar").isEmpty)
        // The week of 2025-03-10 averages (6h + 7h 30m + 9h) / 3 = 7h 30m; the week of
        // 2025-03-17 holds the 5 h night alone: under the minimum.
        let bars = svg.elements(withClass: "average-bar")
        #expect(bars.count == 2)
        #expect(bars.first?.attributes["fill"] == "#4a90d9")
        #expect(bars.last?.attributes["fill"] == "#d62728" && bars.last?.classes.contains("below-minimum") == true)
        let ratio = (bars.first?.number("height") ?? 0) / (bars.last?.number("height") ?? 1)
        #expect(abs(ratio - 7.5 / 5) < 0.01)
        #expect(bars.first?.tooltip.contains("7h 30m") == true, "\(bars.first?.tooltip ?? "")")
        #expect(svg.elements(withClass: "goal-band").count == 1)
    }
}
