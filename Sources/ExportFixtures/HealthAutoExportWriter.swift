public import SleepCore

/// Writes sleep samples as a JSON payload of the iOS app Health Auto Export (its REST API
/// automation with "Summarize Data" off): `{"data":{"metrics":[{"name":"sleep_analysis",
/// "units":"hr","data":[{"startDate":...,"endDate":...,"value":"Core","source":...,
/// "qty":...}]}]}}`, optionally with other metrics and the app's other habits.
public enum HealthAutoExportWriter {
    /// How the payload is laid out.
    public struct Layout: Sendable, Hashable {
        /// Dates on the 12-hour clock, `2024-09-21 7:57:00\u{202F}am +1000`, as a phone set
        /// to it writes them; else `2024-09-21 07:57:00 +1000`.
        public var isTwelveHour: Bool
        /// Each metric's `data` before its `name` (the app keeps no order of members).
        public var isDataBeforeName: Bool
        /// Entries of a `heart_rate` metric written before the sleep metric, with about
        /// this many bytes (0: none).
        public var fillerBytes: Int64
        /// Non-ASCII characters written as `\uXXXX` escapes and `/` as `\/`.
        public var escapesText: Bool
        /// One member a line, indented with tabs; else one line.
        public var isPretty: Bool
        /// The offset dates are printed with when a sample has none.
        public var utcOffsetSeconds: Int32

        /// Creates a layout; by default sleep only, name first, 24-hour dates, one line.
        public init(
            isTwelveHour: Bool = false, isDataBeforeName: Bool = false, fillerBytes: Int64 = 0,
            escapesText: Bool = false, isPretty: Bool = false, utcOffsetSeconds: Int32 = 3600
        ) {
            self.isTwelveHour = isTwelveHour
            self.isDataBeforeName = isDataBeforeName
            self.fillerBytes = fillerBytes
            self.escapesText = escapesText
            self.isPretty = isPretty
            self.utcOffsetSeconds = utcOffsetSeconds
        }
    }

    /// The app's label for a stage (`In Bed`, `Asleep`, `Core`, `Deep`, `REM`, `Awake`).
    public static func label(_ stage: SleepStage) -> String {
        switch stage {
        case .inBed: return "In Bed"
        case .asleepUnspecified: return "Asleep"
        case .core: return "Core"
        case .deep: return "Deep"
        case .rem: return "REM"
        case .awake: return "Awake"
        }
    }

    /// The payload's bytes.
    public static func bytes(samples: [SleepSample], layout: Layout = Layout()) -> [UInt8] {
        var output: [UInt8] = []
        let sink = ByteSink { output.append(contentsOf: $0) }
        try? write(samples: samples, layout: layout, to: sink)
        try? sink.flush()
        return output
    }

    /// Writes the payload to `sink` (call `flush()` after).
    public static func write(samples: [SleepSample], layout: Layout = Layout(), to sink: ByteSink) throws {
        let newline = layout.isPretty ? "\n" : ""
        func indent(_ level: Int) -> String { layout.isPretty ? String(repeating: "\t", count: level) : "" }
        try sink.write("{\(newline)\(indent(1))\"data\":{\(newline)\(indent(2))\"metrics\":[\(newline)")
        var isFirstMetric = true
        if layout.fillerBytes > 0 {
            try writeMetric(name: "heart_rate", units: "count/min", layout: layout, to: sink) {
                var written: Int64 = 0
                var instant: Int64 = 1_704_067_200
                var isFirst = true
                while written < layout.fillerBytes {
                    let date = date(instant, layout.utcOffsetSeconds, layout)
                    let beat = 50 + instant % 40
                    let entry =
                        "\(isFirst ? "" : ",")\(newline)\(indent(5)){\"date\":\"\(date)\",\"Min\":\(beat),\"Avg\":\(beat + 3).5,\"Max\":\(beat + 9),\"source\":\"\(escaped("Anna’s Apple Watch", layout))\"}"
                    try sink.write(entry)
                    written += Int64(entry.utf8.count)
                    instant += 60
                    isFirst = false
                }
            }
            isFirstMetric = false
        }
        if !isFirstMetric { try sink.write(",\(newline)") }
        try writeMetric(name: "sleep_analysis", units: "hr", layout: layout, to: sink) {
            for (position, sample) in samples.enumerated() {
                let offset = sample.printedUTCOffset ?? layout.utcOffsetSeconds
                let hours = Double(sample.end - sample.start) / 3600
                try sink.write(
                    "\(position == 0 ? "" : ",")\(newline)\(indent(5)){\"source\":\"\(escaped(sample.source, layout))\","
                        + "\"startDate\":\"\(date(sample.start, offset, layout))\","
                        + "\"endDate\":\"\(date(sample.end, offset, layout))\",\"value\":\"\(label(sample.stage))\","
                        + "\"date\":null,\"qty\":\(hours)}")
            }
        }
        try sink.write("\(newline)\(indent(2))]\(newline)\(indent(1))}\(newline)}\(newline)")
    }

    private static func writeMetric(
        name: String, units: String, layout: Layout, to sink: ByteSink, entries: () throws -> Void
    ) throws {
        let newline = layout.isPretty ? "\n" : ""
        let three = layout.isPretty ? "\t\t\t" : ""
        let four = layout.isPretty ? "\t\t\t\t" : ""
        let head = "\(four)\"name\":\"\(name)\",\(newline)\(four)\"units\":\"\(units)\""
        try sink.write("\(three){\(newline)")
        if !layout.isDataBeforeName { try sink.write(head + ",\(newline)") }
        try sink.write("\(four)\"data\":[")
        try entries()
        try sink.write("\(newline)\(four)]")
        if layout.isDataBeforeName { try sink.write(",\(newline)" + head) }
        try sink.write("\(newline)\(three)}")
    }

    private static func date(_ instant: Int64, _ offset: Int32, _ layout: Layout) -> String {
        let text = AppleDateText.format(instant, utcOffsetSeconds: offset)
        guard layout.isTwelveHour else { return text }
        // "2024-09-21 19:57:00 +1000" → "2024-09-21 7:57:00\u{202F}pm +1000"
        let parts = text.split(separator: " ")
        let clock = parts[1].split(separator: ":")
        let hour = Int(clock[0]) ?? 0
        let twelve = hour % 12 == 0 ? 12 : hour % 12
        let meridiem = hour < 12 ? "am" : "pm"
        let shown = "\(parts[0]) \(twelve):\(clock[1]):\(clock[2])\u{202F}\(meridiem) \(parts[2])"
        return escaped(shown, layout)
    }

    /// `text` as the inside of a JSON string.
    private static func escaped(_ text: String, _ layout: Layout) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "/" where layout.escapesText: output += "\\/"
            case _ where scalar.value < 0x20 || (layout.escapesText && scalar.value > 0x7E):
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
