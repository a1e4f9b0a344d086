// make-export: writes a realistic, seeded Apple Health export for tests and benchmarks,
// or (--read) times HealthImport reading one back.
//
//   swift run -c release make-export --size 500MB --seed 1 --format zip --output /tmp/export.zip
//   (--size is the size of export.xml; the zip is about 15 times smaller)
//   swift run -c release make-export --read /tmp/export.zip   (or --read - for standard input)
//   swift run -c release make-export --size 64MB --format hae --output /tmp/payload.json
//   (a Health Auto Export JSON payload; --hae-layout and --hae-clock shape it)
//   swift run -c release make-export --read-foundation /tmp/payload.json   (JSONSerialization, the baseline)
import ExportFixtures
import Foundation
import HealthImport
import SleepCore
import SleepFixtures

struct Arguments {
    var size: Int64 = 50 << 20
    var seed: UInt64 = 1
    var format = "zip"
    var output: String?
    var doctype = ExportSpec.DoctypeStyle.apple
    var readPath: String?
    var foundationReadPath: String?
    var checkPath: String?
    var haeLayout = "name-first"
    var haeClock = "24"
    /// The wake day of the last generated night; by default the nights start 2019-01-01.
    var lastWakeDay: LocalDate?
}

let usageText = """
    usage: make-export --size 500MB [--seed 1] [--format zip|xml|csv|hae] [--doctype apple|iOS16Malformed|none] [--until YYYY-MM-DD]
                       [--hae-layout name-first|data-first|mixed] [--hae-clock 24|12] --output PATH
           make-export --read PATH   (times HealthImport reading PATH)
           make-export --read-foundation PATH   (times Foundation's JSONSerialization parsing PATH)
           make-export --check PATH   (times HealthImportReader.check, the upload server's check of a push)
           make-export --help

    Writes a realistic, seeded Apple Health export (--size is the size of export.xml; the
    zip is about 15 times smaller; --until is the last night's wake day, 1900-01-01 through
    2199-12-31), or times HealthImport reading one back.

    --format hae writes a Health Auto Export JSON payload of about --size bytes: sleep
    entries only with the metric's name first (name-first), the same with its data before
    its name (data-first, which the reader must hold until the name), or half of the bytes
    heart-rate entries before the sleep metric (mixed); --hae-clock 12 writes dates such as
    2024-09-21 7:57:00\u{202F}pm +1000.

    """

/// A usage error: the message and the usage on standard error, exit 64.
func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("make-export: \(message)\n\(usageText)".utf8))
    exit(64)
}

func parseSize(_ text: String) -> Int64? {
    let upper = text.uppercased()
    let units: [(String, Int64)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
    for (suffix, factor) in units where upper.hasSuffix(suffix) {
        return Int64(upper.dropLast(suffix.count)).map { $0 * factor }
    }
    return Int64(upper)
}

func parseArguments() -> Arguments {
    var arguments = Arguments()
    var rest = CommandLine.arguments.dropFirst()
    while let flag = rest.popFirst() {
        if flag == "--help" || flag == "-h" {
            FileHandle.standardOutput.write(Data(usageText.utf8))
            exit(0)
        }
        guard let value = rest.popFirst() else { usage("\(flag) needs a value") }
        switch flag {
        case "--size":
            guard let size = parseSize(value) else { usage("bad size \(value)") }
            arguments.size = size
        case "--seed":
            guard let seed = UInt64(value) else { usage("bad seed \(value)") }
            arguments.seed = seed
        case "--format": arguments.format = value
        case "--output": arguments.output = value
        case "--doctype":
            guard let style = ExportSpec.DoctypeStyle(rawValue: value) else {
                usage("bad doctype \(value)")
            }
            arguments.doctype = style
        case "--read": arguments.readPath = value
        case "--read-foundation": arguments.foundationReadPath = value
        case "--check": arguments.checkPath = value
        case "--hae-layout":
            guard ["name-first", "data-first", "mixed"].contains(value) else { usage("bad layout \(value)") }
            arguments.haeLayout = value
        case "--hae-clock":
            guard ["24", "12"].contains(value) else { usage("bad clock \(value)") }
            arguments.haeClock = value
        case "--until":
            guard let day = LocalDate(value), day.isSupported else {
                usage("bad date \(value), expected YYYY-MM-DD from \(LocalDate.supportedRangeText)")
            }
            arguments.lastWakeDay = day
        default: usage("unknown flag \(flag)")
        }
    }
    return arguments
}

func readBack(_ path: String) {
    let reader = HealthImportReader()
    var samples = 0
    let clock = ContinuousClock()
    let started = clock.now
    do {
        let report = try reader.read(ImportSource(argument: path)) { _, _ in samples += 1 }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let xmlBytes = report.inputBytes
        print(
            "kind=\(report.kind.rawValue) entry=\(report.entryName ?? "-") inputBytes=\(report.inputBytes)"
        )
        print(
            "records=\(report.recordsSeen) sleep=\(report.sleepRecords) accepted=\(report.accepted) rejected=\(report.rejected) samples=\(samples)"
        )
        print("sha256=\(report.sha256)")
        print(
            String(format: "seconds=%.3f inputMBps=%.1f", seconds, Double(xmlBytes) / 1_048_576 / seconds)
        )
    } catch {
        FileHandle.standardError.write(Data("make-export: \(error)\n".utf8))
        exit(65)
    }
}

/// Parses a JSON file with Foundation's `JSONSerialization` (the whole file in memory, then
/// a tree of objects), the baseline for the Health Auto Export reader's memory and time.
func readWithFoundation(_ path: String) {
    let clock = ContinuousClock()
    let started = clock.now
    guard let data = FileManager.default.contents(atPath: path),
        let object = try? JSONSerialization.jsonObject(with: data)
    else {
        FileHandle.standardError.write(Data("make-export: \(path) is not JSON\n".utf8))
        exit(65)
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let metrics = ((object as? [String: Any])?["data"] as? [String: Any])?["metrics"] as? [[String: Any]] ?? []
    let entries = metrics.reduce(0) { $0 + (($1["data"] as? [Any])?.count ?? 0) }
    print("foundation metrics=\(metrics.count) entries=\(entries) inputBytes=\(data.count)")
    print(String(format: "seconds=%.3f inputMBps=%.1f", seconds, Double(data.count) / 1_048_576 / seconds))
}

/// Writes a Health Auto Export payload of about `arguments.size` bytes.
func writeHealthAutoExport(_ arguments: Arguments, to output: String) throws {
    // About 160 bytes per sleep entry on one line; SleepFixtures writes about 30 a night.
    let isMixed = arguments.haeLayout == "mixed"
    let sleepBytes = isMixed ? arguments.size / 2 : arguments.size
    let nights = max(Int(sleepBytes / 160 / 30), 1)
    let first = arguments.lastWakeDay?.adding(days: -nights) ?? LocalDate(year: 2019, month: 1, day: 1)
    let samples = SleepStreamGenerator(seed: arguments.seed).samples(
        from: first, through: first.adding(days: nights - 1)
    )
    .filter { $0.end > $0.start }
    let layout = HealthAutoExportWriter.Layout(
        isTwelveHour: arguments.haeClock == "12", isDataBeforeName: arguments.haeLayout == "data-first",
        fillerBytes: isMixed ? arguments.size - sleepBytes : 0)
    guard FileManager.default.createFile(atPath: output, contents: nil),
        let handle = FileHandle(forWritingAtPath: output)
    else { usage("cannot write \(output)") }
    let sink = ByteSink { bytes in handle.write(Data(bytes)) }
    try HealthAutoExportWriter.write(samples: samples, layout: layout, to: sink)
    try sink.flush()
    try handle.close()
    print("wrote \(output): \(sink.bytesWritten) bytes, \(samples.count) sleep samples over \(nights) nights")
}

let arguments = parseArguments()
if let path = arguments.readPath {
    readBack(path)
    exit(0)
}
if let path = arguments.foundationReadPath {
    readWithFoundation(path)
    exit(0)
}
if let path = arguments.checkPath {
    let clock = ContinuousClock()
    let started = clock.now
    do {
        let kind = try HealthImportReader().check(.path(path))
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print("check kind=\(kind.rawValue) inputBytes=\(bytes)")
        print(String(format: "seconds=%.3f inputMBps=%.1f", seconds, Double(bytes) / 1_048_576 / seconds))
    } catch {
        FileHandle.standardError.write(Data("make-export: \(error)\n".utf8))
        exit(65)
    }
    exit(0)
}
guard let output = arguments.output else { usage("--output is required") }
if arguments.format == "hae" {
    do {
        try writeHealthAutoExport(arguments, to: output)
    } catch {
        FileHandle.standardError.write(Data("make-export: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}
// About 330 bytes per record and 3% sleep records; SleepFixtures writes about 30 sleep
// samples a night (staged Watch nights, iPhone InBed fragments, a third-party app, naps).
let records = max(arguments.size / 330, 1)
let nights = max(Int(records * 3 / 100 / 30), 1)
let firstEvening = arguments.lastWakeDay?.adding(days: -nights) ?? LocalDate(year: 2019, month: 1, day: 1)
let samples = SleepStreamGenerator(seed: arguments.seed)
    .samples(from: firstEvening, through: firstEvening.adding(days: nights - 1))
let spec = ExportSpec(
    seed: arguments.seed, approximateXMLBytes: arguments.size, doctypeStyle: arguments.doctype)
do {
    switch arguments.format {
    case "zip":
        try ExportZipWriter.write(samples: samples, spec: spec, toPath: output)
    case "xml":
        guard FileManager.default.createFile(atPath: output, contents: nil),
            let handle = FileHandle(forWritingAtPath: output)
        else { usage("cannot write \(output)") }
        let sink = ByteSink { bytes in handle.write(Data(bytes)) }
        try ExportXMLWriter.write(samples: samples, spec: spec, to: sink)
        try handle.close()
    case "csv":
        try ExportCSVWriter.text(samples: samples).write(
            toFile: output, atomically: true, encoding: .utf8)
    default:
        usage("unknown format \(arguments.format)")
    }
    print("wrote \(output): \(samples.count) sleep samples over \(nights) nights")
} catch {
    FileHandle.standardError.write(Data("make-export: \(error)\n".utf8))
    exit(74)
}
