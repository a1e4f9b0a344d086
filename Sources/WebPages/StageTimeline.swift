import SleepCore

/// Last night's stages from bedtime to wake as a small inline SVG: four lanes (awake, REM,
/// core, deep; unstaged sleep in the core lane), each segment where it happened. Colours
/// come from the stylesheet's classes (`st-deep`, ...), so they follow light and dark mode;
/// no text inside, so it may stretch to any width (`preserveAspectRatio="none"`); the lane
/// names stand beside it in HTML.
enum StageTimeline {
    /// The lanes from top to bottom, with their class and name.
    static let lanes: [(stage: String, name: String)] = [
        ("awake", "Awake"), ("rem", "REM"), ("core", "Core"), ("deep", "Deep"),
    ]

    /// The SVG's coordinate width.
    static let width = 1000.0
    /// One lane's height.
    static let laneHeight = 10.0

    /// Whether `last` has stage data to draw: a segment of core, deep or REM.
    static func hasStages(_ last: LastNightSummary) -> Bool {
        last.stageSegments.contains { $0.stage.isStaged }
    }

    /// The timeline of `last` with its lane names and a text description.
    static func html(_ last: LastNightSummary, description: String) -> HTML {
        let start = last.bedtime
        let span = Double(max(1, last.wake - last.bedtime))
        func x(_ instant: Int64) -> Double { (Double(min(max(instant, start), last.wake) - start) / span) * width }
        func rect(lane: Int, from: Int64, to: Int64, stage: String) -> HTML? {
            let left = x(from)
            let right = x(to)
            guard right > left else { return nil }
            return
                "<rect class=\"st-\(stage)\" x=\"\(number(left))\" y=\"\(number(Double(lane) * laneHeight + 1))\" width=\"\(number(right - left))\" height=\"\(number(laneHeight - 2))\"/>"
        }
        var shapes: [HTML] = []
        var cursor = start
        for segment in last.stageSegments.sorted(by: { $0.span.start < $1.span.start }) {
            // Awake: in bed and not in a sleep segment (before sleep, wake-ups, gaps).
            if segment.span.start > cursor,
                let awake = rect(lane: 0, from: cursor, to: segment.span.start, stage: "awake")
            {
                shapes.append(awake)
            }
            let (lane, stage): (Int, String)
            switch segment.stage {
            case .rem: (lane, stage) = (1, "rem")
            case .deep: (lane, stage) = (3, "deep")
            case .core: (lane, stage) = (2, "core")
            default: (lane, stage) = (2, "unstaged")
            }
            if let shape = rect(lane: lane, from: segment.span.start, to: segment.span.end, stage: stage) {
                shapes.append(shape)
            }
            cursor = max(cursor, segment.span.end)
        }
        if last.wake > cursor, let awake = rect(lane: 0, from: cursor, to: last.wake, stage: "awake") {
            shapes.append(awake)
        }
        let height = Double(lanes.count) * laneHeight
        let names = lanes.map { lane -> HTML in "<span>\(lane.name)</span>" }
        return """
            <div class="timeline">
            <div class="timeline-lanes" aria-hidden="true">\(names)</div>
            <svg class="timeline-svg" role="img" aria-label="\(description)" viewBox="0 0 \(Int(width)) \(Int(height))" preserveAspectRatio="none">\
            <rect class="timeline-track" x="0" y="0" width="\(Int(width))" height="\(Int(height))"/>\(shapes)</svg>
            </div>

            """
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
