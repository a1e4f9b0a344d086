import Foundation

/// Renders metric families in the Prometheus text exposition format, version 0.0.4: a
/// `# HELP` and a `# TYPE` line per family, then one line per sample; a histogram as its
/// cumulative `_bucket` lines (the last with `le="+Inf"`), `_sum` and `_count`. Pure: no
/// sockets, no clock, so every detail of the format is testable.
public enum PrometheusText {
    /// The `Content-Type` of a scrape's answer.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `families`, in their order; series in the order given.
    public static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for series in family.series {
                let pairs = Array(zip(family.labelNames, series.labelValues))
                switch series.value {
                case .number(let value):
                    text += family.name + labels(pairs) + " " + number(value) + "\n"
                case .histogram(let histogram):
                    for (bound, count) in zip(histogram.upperBounds, histogram.cumulativeCounts) {
                        text += family.name + "_bucket" + labels(pairs + [("le", number(bound))]) + " \(count)\n"
                    }
                    text += family.name + "_bucket" + labels(pairs + [("le", "+Inf")]) + " \(histogram.count)\n"
                    text += family.name + "_sum" + labels(pairs) + " " + number(histogram.sum) + "\n"
                    text += family.name + "_count" + labels(pairs) + " \(histogram.count)\n"
                }
            }
        }
        return text
    }

    /// `{name="value",...}`, or nothing without labels.
    static func labels(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A label value with `\`, `"` and line feeds escaped, as the format requires.
    public static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A help text with `\` and line feeds escaped.
    public static func escapeHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value: whole numbers without a fraction, `+Inf`, `-Inf` and `NaN` as the
    /// format spells them, anything else in Swift's shortest exact form.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
