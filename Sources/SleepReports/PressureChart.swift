import Foundation
public import SleepCore

/// Today's sleep-pressure curve (``SleepCore/SleepPressureCurve``) as a small standalone
/// SVG: the relative pressure through the day (solid until now, dashed after, where the
/// person is taken to stay awake), the evening window shaded, hours along the bottom. No
/// vertical scale: the curve is relative, never a prediction of performance.
public enum PressureChart {
    /// The SVG of `curve`.
    public static func svg(_ curve: SleepPressureCurve) -> String {
        let width = 600.0
        let height = 180.0
        let (left, right, top, bottom) = (20.0, 20.0, 30.0, 34.0)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let span = Double(max(1, curve.points.last?.elapsedSeconds ?? 86_400))
        let values = curve.points.map(\.pressure)
        let low = (values.min() ?? 0) - 0.02
        let high = (values.max() ?? 1) + 0.02
        func x(_ elapsed: Int64) -> Double { left + plotWidth * Double(elapsed) / span }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - (value - low) / max(0.0001, high - low)) }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }

        var parts: [String] = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
                + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<title>Sleep pressure today, \(curve.day): relative, from your nights and body clock</title>",
        ]
        // The evening window, possibly wrapping past midnight: one or two bands.
        let start = curve.eveningWindowStartSeconds
        let end = curve.eveningWindowEndSeconds
        let bands: [(Int64, Int64)] = start <= end ? [(start, end)] : [(start, Int64(86_400)), (Int64(0), end)]
        for (from, to) in bands {
            parts.append(
                "<rect class=\"evening-window\" x=\"\(number(x(from)))\" y=\"\(number(top))\" "
                    + "width=\"\(number(max(0, x(min(to, Int64(span))) - x(from))))\" height=\"\(number(plotHeight))\" "
                    + "fill=\"#8fd19e\" fill-opacity=\"0.35\"/>")
        }
        for hour in stride(from: 0, through: 24, by: 6) {
            let at = x(Int64(hour) * 3600)
            parts.append(
                "<line class=\"grid\" x1=\"\(number(at))\" y1=\"\(number(top))\" x2=\"\(number(at))\" "
                    + "y2=\"\(number(top + plotHeight))\" stroke=\"#e6e6e6\"/>")
            parts.append(
                "<text class=\"axis\" x=\"\(number(at))\" y=\"\(number(height - 12))\" text-anchor=\"middle\" "
                    + "fill=\"#555555\">\(hour < 10 ? "0" : "")\(hour):00</text>")
        }
        let past = curve.points.filter { !$0.isProjected }
        let projected = curve.points.drop { !$0.isProjected }
        let joined = (past.last.map { [$0] } ?? []) + projected
        for (points, dashed) in [(past, false), (Array(joined), true)] where points.count > 1 {
            let coordinates = points.map { "\(number(x($0.elapsedSeconds))),\(number(y($0.pressure)))" }
            parts.append(
                "<polyline class=\"pressure\(dashed ? " projected" : "")\" points=\"\(coordinates.joined(separator: " "))\" "
                    + "fill=\"none\" stroke=\"#1f3b73\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"5 4\"" : "")/>"
            )
        }
        parts.append(
            "<text class=\"legend\" x=\"\(number(left))\" y=\"18\" fill=\"#333333\">higher: sleepier; "
                + "shaded: your evening window; dashed: if you stay awake</text>")
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n"
    }
}
