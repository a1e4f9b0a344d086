import Foundation
import SleepCore

/// A small SVG writer for the admin charts: a fixed canvas with a plot area, hour axis,
/// bucket labels, title and legend. Output is standalone SVG 1.1 that browsers render.
struct ChartSVG {
    /// The colours of every chart, named for what they show (docs/admin.md).
    enum Palette {
        static let deep = "#1f3b73"
        static let rem = "#9c6ade"
        static let core = "#4a90d9"
        static let awake = "#f2a541"
        static let unstaged = "#6fa8dc"
        static let inBed = "#d9d9d9"
        static let average = "#4a90d9"
        static let warning = "#d62728"
        static let band = "#8fd19e"
        static let debt = "#e07b39"
        static let cumulative = "#333333"
        static let axis = "#555555"
        static let grid = "#e6e6e6"
    }

    let width = 900.0
    let height = 460.0
    let left = 70.0
    let right = 190.0
    let top = 56.0
    let bottom = 96.0
    /// Largest value of the vertical axis, in hours.
    let maximumHours: Double
    private var body: [String] = []
    private var legend: [(color: String, label: String, isLine: Bool)] = []

    init(maximumHours: Double) {
        self.maximumHours = max(1, maximumHours.rounded(.up))
    }

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }

    /// The y coordinate of `hours` on the vertical axis.
    func y(hours: Double) -> Double { top + plotHeight * (1 - min(hours, maximumHours) / maximumHours) }

    /// The left edge and width of slot `index` of `count` equal slots.
    func slot(_ index: Int, of count: Int) -> (x: Double, width: Double) {
        let slotWidth = plotWidth / Double(max(1, count))
        return (left + slotWidth * Double(index), slotWidth)
    }

    /// A bucket label short enough for the x axis: cut ranges within one year lose the
    /// year (`02-18..02-23`).
    static func axisLabel(_ range: WakeDayRange, horizon: Horizon) -> String {
        let label = ReportFormat.bucketLabel(range, horizon: horizon)
        guard label.contains(".."), range.first.year == range.last.year else { return label }
        return "\(range.first.description.dropFirst(5))..\(range.last.description.dropFirst(5))"
    }

    /// `text` for the SVG's text and attributes: markup characters as references, control
    /// and bidirectional characters as their visible stand-ins (``ControlCharacters``), so a
    /// value can neither end an element nor reorder the text around it.
    static func escape(_ text: String) -> String {
        ControlCharacters.replacing(in: text, keepingLayout: false).replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Adds a rectangle (with a tooltip when `title` is given).
    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, cssClass: String,
        stroke: String? = nil, strokeWidth: Double = 0, opacity: Double? = nil, title: String? = nil
    ) {
        var attributes =
            "class=\"\(cssClass)\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(max(0, width)))\" height=\"\(Self.number(max(0, height)))\" fill=\"\(fill)\""
        if let stroke { attributes += " stroke=\"\(stroke)\" stroke-width=\"\(Self.number(strokeWidth))\"" }
        if let opacity { attributes += " fill-opacity=\"\(String(format: "%.2f", opacity))\"" }
        if let title {
            body.append("<rect \(attributes)><title>\(Self.escape(title))</title></rect>")
        } else {
            body.append("<rect \(attributes)/>")
        }
    }

    /// Adds a polyline through `points`.
    mutating func polyline(_ points: [(Double, Double)], stroke: String, cssClass: String) {
        let list = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        body.append(
            "<polyline class=\"\(cssClass)\" points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2.5\"/>"
        )
        for point in points {
            body.append(
                "<circle class=\"\(cssClass)-point\" cx=\"\(Self.number(point.0))\" cy=\"\(Self.number(point.1))\" r=\"3\" fill=\"\(stroke)\"/>"
            )
        }
    }

    /// Adds text.
    mutating func text(
        _ text: String, x: Double, y: Double, anchor: String = "middle", size: Double = 12, bold: Bool = false
    ) {
        body.append(
            "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor)\" font-size=\"\(Self.number(size))\"\(bold ? " font-weight=\"bold\"" : "")>\(Self.escape(text))</text>"
        )
    }

    /// Adds a legend entry.
    mutating func addLegend(_ color: String, _ label: String, isLine: Bool = false) {
        legend.append((color, label, isLine))
    }

    /// Labels below the slots; only every n-th when there are many.
    mutating func slotLabels(_ labels: [String]) {
        let step = max(1, Int((Double(labels.count) / 16).rounded(.up)))
        for (index, label) in labels.enumerated() where index % step == 0 || index == labels.count - 1 {
            let slot = slot(index, of: labels.count)
            let x = slot.x + slot.width / 2
            let y = top + plotHeight + 16
            body.append(
                "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"end\" font-size=\"11\" transform=\"rotate(-35 \(Self.number(x)) \(Self.number(y)))\">\(Self.escape(label))</text>"
            )
        }
    }

    /// The whole document: background, grid and hour axis, the added shapes, title, axis
    /// titles and legend.
    func rendered(title: String, yTitle: String, xTitle: String) -> String {
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"DejaVu Sans, Arial, sans-serif\">",
            "<title>\(Self.escape(title))</title>",
            "<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#ffffff\"/>",
        ]
        let step =
            maximumHours > 40 ? (maximumHours / 8).rounded(.up) : maximumHours > 12 ? 4 : maximumHours > 6 ? 2 : 1
        var tick = 0.0
        while tick <= maximumHours + 0.001 {
            let y = y(hours: tick)
            lines.append(
                "<line class=\"grid\" x1=\"\(Self.number(left))\" y1=\"\(Self.number(y))\" x2=\"\(Self.number(left + plotWidth))\" y2=\"\(Self.number(y))\" stroke=\"\(Palette.grid)\"/>"
            )
            lines.append(
                "<text x=\"\(Self.number(left - 8))\" y=\"\(Self.number(y + 4))\" text-anchor=\"end\" font-size=\"11\">\(Int(tick))h</text>"
            )
            tick += step
        }
        lines += body
        let axisY = Self.number(top + plotHeight)
        lines.append(
            "<line class=\"axis\" x1=\"\(Self.number(left))\" y1=\"\(axisY)\" x2=\"\(Self.number(left + plotWidth))\" y2=\"\(axisY)\" stroke=\"\(Palette.axis)\"/>"
        )
        lines.append(
            "<line class=\"axis\" x1=\"\(Self.number(left))\" y1=\"\(Self.number(top))\" x2=\"\(Self.number(left))\" y2=\"\(axisY)\" stroke=\"\(Palette.axis)\"/>"
        )
        lines.append(
            "<text x=\"\(Self.number(width / 2))\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">\(Self.escape(title))</text>"
        )
        let midY = top + plotHeight / 2
        lines.append(
            "<text x=\"18\" y=\"\(Self.number(midY))\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 18 \(Self.number(midY)))\">\(Self.escape(yTitle))</text>"
        )
        lines.append(
            "<text x=\"\(Self.number(left + plotWidth / 2))\" y=\"\(Self.number(height - 8))\" text-anchor=\"middle\" font-size=\"12\">\(Self.escape(xTitle))</text>"
        )
        let legendX = left + plotWidth + 20
        lines.append("<g class=\"legend\">")
        for (index, entry) in legend.enumerated() {
            let y = top + 10 + Double(index) * 22
            if entry.isLine {
                lines.append(
                    "<line x1=\"\(Self.number(legendX))\" y1=\"\(Self.number(y + 6))\" x2=\"\(Self.number(legendX + 16))\" y2=\"\(Self.number(y + 6))\" stroke=\"\(entry.color)\" stroke-width=\"2.5\"/>"
                )
            } else {
                lines.append(
                    "<rect x=\"\(Self.number(legendX))\" y=\"\(Self.number(y))\" width=\"16\" height=\"12\" fill=\"\(entry.color)\"/>"
                )
            }
            lines.append(
                "<text x=\"\(Self.number(legendX + 22))\" y=\"\(Self.number(y + 11))\" font-size=\"12\">\(Self.escape(entry.label))</text>"
            )
        }
        lines.append("</g>")
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }
}
