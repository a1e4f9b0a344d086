// reader-scaling: writes hostile inputs of a given size and shape, and reads one with
// HealthImportReader, for Benchmarks/reader-scaling.sh (results in docs/reliability.md).
//
//   reader-scaling generate --shape xml-deep-nesting --size 16MB --output /tmp/deep.xml
//   reader-scaling read /tmp/deep.xml                (or `read -` for standard input)
//   reader-scaling read --maximum-sleep-record-bytes 64MB --maximum-sleep-record-depth 100000000 /tmp/deep.xml
//   reader-scaling read --chunk-bytes 4KB /tmp/long-tags.xml   (small reads, as from a slow pipe)
//   reader-scaling shapes                            (lists the shapes)
//
// `read` prints one line of key=value pairs: the outcome (`ok`, or `bad-file` with the
// reason), the counts, how many diagnostics were kept, the size of the diagnostics as
// the importer stores them (JSON), the seconds the read took (monotonic clock) and the
// CPU seconds it used (user plus system, both threads, from getrusage).
import ExportFixtures
import Foundation
import HealthImport

/// One hostile shape: what it is and how to write it.
struct Shape {
    var name: String
    var summary: String
    /// `xml`, `csv`, `json` or `zip` (a zip holds the XML of `body`).
    var format: String
    /// Writes about `size` bytes of text (XML or CSV) to the sink.
    var body: (_ size: Int, _ sink: TextSink) throws -> Void
}

/// Buffers text and hands it to a writer in blocks of 1 MiB.
final class TextSink {
    private var buffer: [UInt8] = []
    private let flushBytes = 1 << 20
    private let write: ([UInt8]) throws -> Void
    private(set) var written = 0

    init(write: @escaping ([UInt8]) throws -> Void) {
        self.write = write
        buffer.reserveCapacity(flushBytes + 4096)
    }

    func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        written += text.utf8.count
        if buffer.count >= flushBytes { try flush() }
    }

    /// Appends `count` copies of one ASCII byte, in blocks.
    func repeatByte(_ byte: UInt8, count: Int) throws {
        var left = count
        while left > 0 {
            let step = min(left, flushBytes)
            buffer.append(contentsOf: repeatElement(byte, count: step))
            written += step
            left -= step
            if buffer.count >= flushBytes { try flush() }
        }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

let sleepType = "HKCategoryTypeIdentifierSleepAnalysis"
let xmlHead = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-06-01 08:10:05 +0200"/>

    """
let xmlTail = "</HealthData>\n"
let csvHeader = "sourceName,startDate,endDate,value,timeZone\n"

@MainActor func goodSleepRecord(_ index: Int) -> String {
    let day = 1 + index % 28
    return
        " <Record type=\"\(sleepType)\" sourceName=\"Watch\" startDate=\"2024-01-\(day < 10 ? "0" : "")\(day) 23:00:00 +0100\" endDate=\"2024-01-\(day < 10 ? "0" : "")\(day) 23:30:00 +0100\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>\n"
}

/// Writes XML records from `record(i)` until about `size` bytes are written.
@MainActor func xmlRecords(size: Int, sink: TextSink, record: (Int) throws -> Void) throws {
    try sink.append(xmlHead)
    var index = 0
    while sink.written < size - xmlTail.utf8.count {
        try record(index)
        index += 1
    }
    try sink.append(xmlTail)
}

let haeHead = "{\"data\":{\"metrics\":[{\"name\":\"sleep_analysis\",\"units\":\"hr\",\"data\":["
let haeTail = "]}]}}\n"

@MainActor func haeEntry(_ index: Int, value: String = "Core") -> String {
    let day = 1 + index % 28
    let date = "2024-01-\(day < 10 ? "0" : "")\(day)"
    return
        "{\"source\":\"Watch\",\"startDate\":\"\(date) 23:00:00 +0100\",\"endDate\":\"\(date) 23:30:00 +0100\",\"value\":\"\(value)\",\"qty\":0.5}"
}

/// Writes Health Auto Export entries from `entry(i)` between `head` and `tail` until about
/// `size` bytes are written.
@MainActor func haeEntries(
    size: Int, sink: TextSink, head: String = haeHead, tail: String = haeTail, entry: (Int) throws -> Void
) throws {
    try sink.append(head)
    var index = 0
    while sink.written < size - tail.utf8.count {
        if index > 0 { try sink.append(",") }
        try entry(index)
        index += 1
    }
    try sink.append(tail)
}

let shapes: [Shape] = [
    Shape(
        name: "csv-long-line", summary: "a CSV header, then one row that never ends (no line break)",
        format: "csv",
        body: { size, sink in
            try sink.append(csvHeader + "Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,")
            try sink.repeatByte(UInt8(ascii: "x"), count: max(0, size - sink.written))
        }),
    Shape(
        name: "csv-unclosed-quote", summary: "a CSV header, then a quoted field never closed",
        format: "csv",
        body: { size, sink in
            try sink.append(csvHeader + "\"Watch,2024-01-01T00:00:00Z,")
            var line = 0
            while sink.written < size {
                try sink.append("2024-01-01T00:00:00Z,AsleepCore,Europe/Paris row \(line)\n")
                line += 1
            }
        }),
    Shape(
        name: "csv-long-rows",
        summary: "CSV rows just under the 1 MiB record cap, each rejected for its 1 000 000-byte stage value",
        format: "csv",
        body: { size, sink in
            try sink.append(csvHeader)
            while sink.written < size {
                try sink.append("Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,")
                try sink.repeatByte(UInt8(ascii: "Z"), count: 1_000_000)
                try sink.append(",Europe/Paris\n")
            }
        }),
    Shape(
        name: "csv-many-rejects",
        summary: "CSV rows of about 2 KiB, every one rejected for a 2000-byte stage value",
        format: "csv",
        body: { size, sink in
            try sink.append(csvHeader)
            let value = String(repeating: "Z", count: 2000)
            while sink.written < size {
                try sink.append("Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,\(value),Europe/Paris\n")
            }
        }),
    Shape(
        name: "xml-deep-nesting",
        summary: "sleep records each holding 60 000 nested elements (about 420 KB per record)",
        format: "xml",
        body: { size, sink in
            let depth = 60_000
            try xmlRecords(size: size, sink: sink) { _ in
                try sink.append(
                    " <Record type=\"\(sleepType)\" sourceName=\"Deep\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisInBed\">"
                )
                for _ in 0..<depth { try sink.append("<a>") }
                for _ in 0..<depth { try sink.append("</a>") }
                try sink.append("</Record>\n")
            }
        }),
    Shape(
        name: "xml-deep-record",
        summary:
            "one sleep record whose nesting grows with the size (7 bytes per level)",
        format: "xml",
        body: { size, sink in
            let depth = max(1, (size - 400) / 7)
            try sink.append(xmlHead)
            try sink.append(
                " <Record type=\"\(sleepType)\" sourceName=\"Deep\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"HKCategoryValueSleepAnalysisInBed\">"
            )
            for _ in 0..<depth { try sink.append("<a>") }
            for _ in 0..<depth { try sink.append("</a>") }
            try sink.append("</Record>\n" + xmlTail)
        }),
    Shape(
        name: "xml-long-records",
        summary:
            "sleep records just under the 1 MiB record cap (a 1 000 000-byte stage value), each parsed by XMLParser and rejected",
        format: "xml",
        body: { size, sink in
            try xmlRecords(size: size, sink: sink) { _ in
                try sink.append(
                    " <Record type=\"\(sleepType)\" sourceName=\"Watch\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\""
                )
                try sink.repeatByte(UInt8(ascii: "Z"), count: 1_000_000)
                try sink.append("\">\n  <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/>\n </Record>\n")
            }
        }),
    Shape(
        name: "xml-unclosed-records",
        summary: "sleep records whose start tags lack their '/', each nested in the one before",
        format: "xml",
        body: { size, sink in
            try xmlRecords(size: size, sink: sink) { index in
                try sink.append(String(goodSleepRecord(index).dropLast(3)) + ">\n")
            }
        }),
    Shape(
        name: "xml-long-tags",
        summary:
            "other records whose start tags hold 8 MiB of short single-quoted attributes (the exact tag reader's slowest case)",
        format: "xml",
        body: { size, sink in
            let attributes = String(repeating: " a='>'", count: 1024)
            try xmlRecords(size: size, sink: sink) { _ in
                try sink.append(" <Record type=\"HKQuantityTypeIdentifierStepCount\"")
                for _ in 0..<((8 << 20) / attributes.utf8.count) { try sink.append(attributes) }
                try sink.append(" value=\"1\"/>\n")
            }
        }),
    Shape(
        name: "hae-long-string",
        summary: "a Health Auto Export payload whose first source name never ends (no closing quote)",
        format: "json",
        body: { size, sink in
            try sink.append(haeHead + "{\"source\":\"")
            try sink.repeatByte(UInt8(ascii: "x"), count: max(0, size - sink.written))
        }),
    Shape(
        name: "hae-many-rejects",
        summary: "Health Auto Export sleep entries of about 2 KiB, every one rejected for a 2000-byte value",
        format: "json",
        body: { size, sink in
            let value = String(repeating: "Z", count: 2000)
            try haeEntries(size: size, sink: sink) { index in try sink.append(haeEntry(index, value: value)) }
        }),
    Shape(
        name: "hae-long-values",
        summary:
            "Health Auto Export sleep entries just under the 1 MiB cap of a kept value (a 1 000 000-byte value), each rejected",
        format: "json",
        body: { size, sink in
            try haeEntries(size: size, sink: sink) { _ in
                try sink.append(
                    "{\"source\":\"Watch\",\"startDate\":\"2024-01-01 23:00:00 +0100\",\"endDate\":\"2024-01-02 06:00:00 +0100\",\"value\":\""
                )
                try sink.repeatByte(UInt8(ascii: "Z"), count: 1_000_000)
                try sink.append("\"}")
            }
        }),
    Shape(
        name: "hae-entries-before-name",
        summary:
            "Health Auto Export sleep entries whose metric's name comes after them, so each is held until it arrives (refused past 500 000)",
        format: "json",
        body: { size, sink in
            let tail = "],\"name\":\"sleep_analysis\",\"units\":\"hr\"}]}}\n"
            try haeEntries(size: size, sink: sink, head: "{\"data\":{\"metrics\":[{\"data\":[", tail: tail) { index in
                try sink.append(haeEntry(index))
            }
        }),
    Shape(
        name: "hae-deep-nesting",
        summary: "Health Auto Export sleep entries each holding arrays nested 250 deep in an ignored member",
        format: "json",
        body: { size, sink in
            let nested = String(repeating: "[", count: 250) + String(repeating: "]", count: 250)
            try haeEntries(size: size, sink: sink) { index in
                try sink.append(String(haeEntry(index).dropLast()) + ",\"extra\":\(nested)}")
            }
        }),
    Shape(
        name: "zip-many-rejects",
        summary:
            "a zip whose sleep records are rejected for 64 KiB stage values, one good record in 100 (compresses about 60:1)",
        format: "zip",
        body: { size, sink in
            // A 4 KiB block of seeded letters, 16 times: deflate finds the repeats (so the
            // zip is small) without reaching the 1000:1 ratio the reader refuses as a bomb.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let block = String(
                (0..<4096).map { _ -> Character in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8((state >> 33) % 26)))
                })
            let value = String(repeating: block, count: 16)
            try xmlRecords(size: size, sink: sink) { index in
                if index % 100 == 0 {
                    try sink.append(goodSleepRecord(index))
                } else {
                    try sink.append(
                        " <Record type=\"\(sleepType)\" sourceName=\"Watch\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"\(value)\"/>\n"
                    )
                }
            }
        }),
]

func fail(_ message: String, code: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("reader-scaling: \(message)\n".utf8))
    exit(code)
}

func parseSize(_ text: String) -> Int? {
    let upper = text.uppercased()
    for (suffix, factor) in [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
    where upper.hasSuffix(suffix) {
        return Int(upper.dropLast(suffix.count)).map { $0 * factor }
    }
    return Int(upper)
}

@MainActor func generate(_ arguments: [String]) throws {
    var shapeName: String?
    var size: Int?
    var output: String?
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
        switch flag {
        case "--shape": shapeName = value
        case "--size": size = parseSize(value)
        case "--output": output = value
        default: fail("unknown flag \(flag)")
        }
    }
    guard let shapeName, let shape = shapes.first(where: { $0.name == shapeName }) else {
        fail("--shape must be one of \(shapes.map(\.name).joined(separator: ", "))")
    }
    guard let size, size > 0 else { fail("--size must be a size such as 16MB") }
    guard let output else { fail("--output is required") }
    if shape.format == "zip" {
        try ExportZipWriter.write(toPath: output) { zipSink in
            let sink = TextSink { bytes in try zipSink.write(bytes: bytes) }
            try shape.body(size, sink)
            try sink.flush()
        }
        return
    }
    guard FileManager.default.createFile(atPath: output, contents: nil),
        let handle = FileHandle(forWritingAtPath: output)
    else { fail("cannot write \(output)", code: 73) }
    let sink = TextSink { bytes in handle.write(Data(bytes)) }
    try shape.body(size, sink)
    try sink.flush()
    try handle.close()
}

/// User plus system CPU seconds of the whole process (both reader threads), from getrusage.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

func read(_ arguments: [String]) {
    var options = ReaderOptions()
    var path: String?
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--maximum-sleep-record-bytes":
            guard let value = rest.popFirst().flatMap(parseSize) else { fail("\(argument) needs a size") }
            options.maximumSleepRecordBytes = value
        case "--maximum-sleep-record-depth":
            guard let value = rest.popFirst().flatMap({ Int($0) }) else { fail("\(argument) needs a number") }
            options.maximumSleepRecordDepth = value
        case "--chunk-bytes":
            guard let value = rest.popFirst().flatMap(parseSize) else { fail("\(argument) needs a size") }
            options.chunkBytes = max(1, value)
        default:
            path = argument
        }
    }
    guard let path else { fail("read needs a path (or -)") }
    let clock = ContinuousClock()
    let started = clock.now
    let cpuAtStart = cpuSeconds()
    var samples = 0
    var line = ""
    do {
        let report = try HealthImportReader(options: options).read(ImportSource(argument: path)) { _, _ in
            samples += 1
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let diagnosticsJSON = (try? encoder.encode(report.diagnostics))?.count ?? -1
        let warningsJSON = (try? encoder.encode(report.warnings))?.count ?? -1
        line =
            "result=ok inputBytes=\(report.inputBytes) records=\(report.recordsSeen) sleep=\(report.sleepRecords) accepted=\(report.accepted) rejected=\(report.rejected) diagnosticsKept=\(report.diagnostics.count) diagnosticsNotKept=\(report.diagnosticsNotKept) diagnosticsJSONBytes=\(diagnosticsJSON) warningsJSONBytes=\(warningsJSON)"
    } catch let error as ImportError {
        var text = error.description
        if text.utf8.count > 200 { text = String(text.utf8.prefix(200)) ?? "" }
        line = "result=bad-file samples=\(samples) error=\"\(text)\""
    } catch {
        fail("\(error)", code: 70)
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(line + String(format: " seconds=%.4f cpuSeconds=%.4f", seconds, cpuSeconds() - cpuAtStart))
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else { fail("usage: reader-scaling generate|read|shapes ...") }
switch arguments.removeFirst() {
case "generate":
    do { try generate(arguments) } catch { fail("\(error)", code: 74) }
case "read":
    read(arguments)
case "shapes":
    for shape in shapes { print("\(shape.name)\t\(shape.format)\t\(shape.summary)") }
default:
    fail("usage: reader-scaling generate|read|shapes ...")
}
