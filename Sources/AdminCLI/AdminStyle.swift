import CLICommon
import Foundation
import SleepCore

/// How the admin tool's text output looks: plain ASCII for pipes and files, Unicode bars
/// on a terminal, and ANSI colour on a terminal when `NO_COLOR` is unset.
struct AdminStyle: Sendable {
    /// Unicode bars and symbols (a terminal).
    let unicode: Bool
    /// ANSI colour (a terminal and no `NO_COLOR`).
    let color: Bool

    init(console: Console, environment: [String: String]) {
        unicode = console.isTerminal
        color = console.isTerminal && environment["NO_COLOR"] == nil
    }

    /// ANSI colours used for stages, severities and bars.
    enum Tint: String {
        case deep = "34"
        case rem = "35"
        case core = "36"
        case awake = "33"
        case unspecified = "37"
        case warning = "31"
        case good = "32"
        case bold = "1"
    }

    /// `text` in `tint` when colour is on (the only styling sequences the tools write).
    func paint(_ text: TerminalText, _ tint: Tint) -> TerminalText {
        color ? TerminalText(styling: text, code: tint.rawValue) : text
    }

    /// A severity word, red for critical and yellow for concerning.
    func severity(_ severity: DebtSeverity) -> TerminalText {
        switch severity {
        case .normal: return paint("\(severity.rawValue)", .good)
        case .concerning: return paint("\(severity.rawValue)", .awake)
        case .critical: return paint("\(severity.rawValue)", .warning)
        }
    }

    /// A horizontal bar of `value` against `maximum`, `width` cells wide at most: eighth
    /// blocks on a terminal, `#` otherwise.
    func bar(_ value: Double, of maximum: Double, width: Int) -> TerminalText {
        guard maximum > 0, value > 0 else { return "" }
        let cells = min(1, value / maximum) * Double(width)
        if !unicode {
            return TerminalText(String(repeating: "#", count: max(1, Int(cells.rounded()))))
        }
        let eighths = max(1, Int((cells * 8).rounded()))
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return TerminalText(String(repeating: "█", count: eighths / 8) + partials[eighths % 8])
    }

    /// The last night's stage bar, `width` cells split by the stage proportions (largest
    /// remainder): `D`, `R`, `C`, `A` (and `u` for unstaged sleep) off a terminal; coloured
    /// blocks, or shades without colour, on one.
    func stageBar(_ proportions: StageProportions, width: Int) -> TerminalText {
        let parts: [(Double, String, String, Tint)] = [
            (proportions.deep, "D", "█", .deep), (proportions.rem, "R", "▓", .rem),
            (proportions.core, "C", "▒", .core), (proportions.unspecified, "u", "▚", .unspecified),
            (proportions.awake, "A", "░", .awake),
        ]
        let total = parts.reduce(0) { $0 + $1.0 }
        guard total > 0 else { return "" }
        let exact = parts.map { $0.0 / total * Double(width) }
        var cells = exact.map { Int($0.rounded(.down)) }
        var left = width - cells.reduce(0, +)
        let order = exact.indices.sorted { (exact[$0] - Double(cells[$0])) > (exact[$1] - Double(cells[$1])) }
        for index in order where left > 0 {
            cells[index] += 1
            left -= 1
        }
        return parts.indices.reduce(into: TerminalText.empty) { bar, index in
            let part = parts[index]
            guard cells[index] > 0 else { return }
            if color {
                bar += paint(TerminalText(String(repeating: "█", count: cells[index])), part.3)
            } else {
                bar += TerminalText(String(repeating: unicode ? part.2 : part.1, count: cells[index]))
            }
        }
    }
}
