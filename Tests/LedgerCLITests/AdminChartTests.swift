import Foundation
import LedgerCLI
import SleepCore
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Collects the elements of an SVG document with their attributes.
final class SVGCollector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var texts: [String] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append((elementName, attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }

    func elements(withClass name: String) -> [[String: String]] {
        elements.filter { ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(name)) }.map(
            \.attributes)
    }
}

@Suite("sleepledger-admin chart")
struct AdminChartTests {
    /// Writes a chart and parses it; fails on malformed XML.
    func chart(_ arguments: [String]) throws -> (SVGCollector, String) {
        let fixture = try AdminFixture.shared()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("admin-chart-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: file) }
        let (code, captured) = runAdmin(
            ["chart", "anna"] + arguments + ["--output", file.path], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.hasPrefix("Wrote the "))
        let data = try Data(contentsOf: file)
        // deploy/chart-check.sh collects the charts to screenshot them in a browser.
        if let folder = ProcessInfo.processInfo.environment["SLEEPLEDGER_CHART_OUTPUT"], !folder.isEmpty {
            let name = "anna-" + arguments.filter { !$0.hasPrefix("--") }.joined(separator: "-") + ".svg"
            try data.write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
        let parser = XMLParser(data: data)
        let collector = SVGCollector()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        #expect(collector.elements.first?.name == "svg")
        #expect(collector.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        return (collector, String(decoding: data, as: UTF8.self))
    }

    @Test("debt chart: one shortfall bar per bucket, the cumulative line, title, axis labels and legend")
    func debtChart() throws {
        let (svg, _) = try chart(["--kind", "debt", "--horizon", "monthly"])
        let fixture = try AdminFixture.shared()
        let summary = SummaryBuilder(nights: fixture.annaNights).summary(horizon: .monthly, asOf: AdminFixture.asOf)
        #expect(svg.elements(withClass: "debt-bar").count == summary.buckets.count)
        #expect(svg.elements(withClass: "debt-bar").allSatisfy { $0["fill"] == "#e07b39" })
        let line = try #require(svg.elements(withClass: "cumulative-line").first)
        #expect(line["points"]?.split(separator: " ").count == summary.buckets.count)
        // The tallest bar belongs to the bucket with the largest shortfall.
        let heights = svg.elements(withClass: "debt-bar").map { Double($0["height"] ?? "") ?? -1 }
        let largest = summary.buckets.indices.max { summary.buckets[$0].debtSeconds < summary.buckets[$1].debtSeconds }
        #expect(heights.indices.max { heights[$0] < heights[$1] } == largest)
        #expect(svg.texts.contains { $0.contains("anna: monthly sleep debt as of 2025-03-17") })
        #expect(svg.texts.contains("Sleep debt (hours)"))
        #expect(svg.texts.contains("Cumulative debt"))
    }

    @Test("weekly duration chart: stage-coloured night bars, the shaded goal band, warnings under the minimum")
    func weeklyDurationChart() throws {
        let (svg, _) = try chart(["--kind", "duration"])
        let band = try #require(svg.elements(withClass: "goal-band").first)
        #expect(band["fill"] == "#8fd19e")
        // The band spans 7h to 8h: one hour on the axis.
        let inBed = svg.elements(withClass: "in-bed-bar")
        #expect(inBed.count == 7)
        for stage in ["deep", "rem", "core", "awake"] {
            #expect(!svg.elements(withClass: "stage-\(stage)").isEmpty, "no \(stage) segments")
        }
        #expect(svg.elements(withClass: "stage-deep").allSatisfy { $0["fill"] == "#1f3b73" })
        // Four of the week's nights are under 7h (golden debt-anna-weekly).
        #expect(svg.elements(withClass: "below-minimum").count == 4)
        #expect(svg.elements(withClass: "below-minimum").allSatisfy { $0["stroke"] == "#d62728" })
        #expect(svg.texts.contains("Goal band 7h-8h"))
    }

    @Test("yearly duration chart: average bars, red under the minimum")
    func yearlyDurationChart() throws {
        let (svg, _) = try chart(["--kind", "duration", "--horizon", "yearly"])
        let bars = svg.elements(withClass: "average-bar")
        // Months with nights: 2024-12, 2025-01, 2025-02, 2025-03 (debt-anna-yearly golden).
        #expect(bars.count == 4)
        #expect(bars.filter { $0["fill"] == "#d62728" }.count == 1)
        #expect(svg.elements(withClass: "goal-band").count == 1)
    }

    @Test("chart without --kind or --output is a usage error")
    func usage() throws {
        let fixture = try AdminFixture.shared()
        var (code, captured) = runAdmin(["chart", "anna", "--output", "/tmp/x.svg"], environment: fixture.environment)
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix("sleepledger-admin: missing --kind"))
        (code, captured) = runAdmin(["chart", "anna", "--kind", "debt"], environment: fixture.environment)
        #expect(code == .usage)
    }
}
