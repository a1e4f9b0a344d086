import ExportFixtures
import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// A Health Auto Export payload around some `sleep_analysis` entries (JSON object texts).
func haePayload(_ entries: [String], otherMetrics: String = "") -> String {
    """
    {"data":{"metrics":[\(otherMetrics){"name":"sleep_analysis","units":"hr","data":[\(entries.joined(separator: ","))]}]}}
    """
}

/// One per-sample entry.
func haeEntry(
    source: String = "Anna's Apple Watch", start: String = "2024-01-01 23:00:00 +0100",
    end: String = "2024-01-02 06:30:00 +0100", value: String = "Core"
) -> String {
    "{\"source\":\"\(source)\",\"startDate\":\"\(start)\",\"endDate\":\"\(end)\",\"value\":\"\(value)\",\"qty\":7.5}"
}

/// Reads a payload text through the whole reader.
func readPayload(_ text: String, options: ReaderOptions = .standard) throws -> ReadOutcome {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try readAll(.path(try directory.write("payload.json", text)), options: options)
}

/// The bad-file reason a payload is refused with.
func payloadRefusal(_ text: String, options: ReaderOptions = .standard) -> ImportError? {
    do {
        _ = try readPayload(text, options: options)
        return nil
    } catch let error as ImportError {
        return error
    } catch {
        return nil
    }
}

@Suite("Health Auto Export payloads")
struct HealthAutoExportTests {
    // 2024-01-01 is day 19723 since 1970.
    static let newYear: Int64 = 19_723 * 86_400

    @Test(
        "each sleep value maps to the stage the XML and CSV readers give",
        arguments: [
            ("Core", SleepStage.core), ("Deep", .deep), ("REM", .rem), ("Awake", .awake),
            ("Asleep", .asleepUnspecified), ("In Bed", .inBed), ("Unspecified", .asleepUnspecified),
            ("in bed", .inBed), ("INBED", .inBed), ("rem", .rem), ("AsleepCore", .core),
            ("Asleep Deep", .deep), ("HKCategoryValueSleepAnalysisAsleepREM", .rem),
            ("HKCategoryValueSleepAnalysisInBed", .inBed), ("asleep_unspecified", .asleepUnspecified),
        ] as [(String, SleepStage)])
    func valueMapping(value: String, stage: SleepStage) throws {
        let outcome = try readPayload(haePayload([haeEntry(value: value)]))
        #expect(outcome.samples.map(\.stage) == [stage])
        #expect(outcome.report.stageCounts == [stage: 1])
    }

    @Test("a sample keeps its source, instants and printed offset; no zone (the user's zone applies)")
    func sampleFields() throws {
        let outcome = try readPayload(
            haePayload([
                haeEntry(
                    source: "Anna\\u2019s Apple Watch \\/ 2", start: "2024-01-01 23:00:00 +0100",
                    end: "2024-01-02 06:30:05 +0100", value: "Deep")
            ]))
        let expected = SleepSample(
            source: "Anna’s Apple Watch / 2", start: Self.newYear + 22 * 3600,
            end: Self.newYear + 86_400 + 5 * 3600
                + 30 * 60 + 5, stage: .deep, timeZoneIdentifier: nil, printedUTCOffset: 3600)
        #expect(outcome.samples == [expected])
        #expect(outcome.report.kind == .healthAutoExport)
        #expect(outcome.report.recordsSeen == 1)
        #expect(outcome.report.sleepRecords == 1)
        #expect(outcome.report.accepted == 1)
        #expect(outcome.report.earliestStart == expected.start)
        #expect(outcome.report.latestEnd == expected.end)
        #expect(outcome.locations.map(\.line) == [1])
    }

    @Test(
        "dates: 24-hour and the 12-hour forms with a narrow no-break space, a no-break space, a space or none",
        arguments: [
            ("2024-09-21 07:57:00 +1000", 7), ("2024-09-21 7:57:00\\u202fam +1000", 7),
            ("2024-09-21 7:57:00\u{202F}am +1000", 7), ("2024-09-21 7:57:00\u{00A0}AM +1000", 7),
            ("2024-09-21 7:57:00 am +1000", 7), ("2024-09-21 7:57:00am +1000", 7),
            ("2024-09-21 07:57:00 a.m. +1000", 7), ("2024-09-21 7:57:00\u{202F}pm +1000", 19),
            ("2024-09-21 7:57:00 PM +1000", 19), ("2024-09-21 12:57:00\u{202F}am +1000", 0),
            ("2024-09-21 12:57:00\u{202F}pm +1000", 12), ("2024-09-21 11:57:00\u{202F}pm +1000", 23),
            ("2024-09-21 1:57:00\u{202F}Pm +1000", 13),
        ] as [(String, Int64)])
    func dateForms(start: String, localHour: Int64) throws {
        // 2024-09-21 is day 19987; +1000 puts the local hour 10 hours ahead of UTC.
        let outcome = try readPayload(haePayload([haeEntry(start: start, end: "2024-09-22 09:00:00 +1000")]))
        let sample = try #require(outcome.samples.first, "\(outcome.report.diagnostics)")
        #expect(sample.start == 19_987 * 86_400 + (localHour - 10) * 3600 + 57 * 60)
        #expect(sample.printedUTCOffset == 36_000)
    }

    @Test(
        "unreadable dates are rejected with their place in the payload; the rest imports",
        arguments: [
            "2024-09-21 13:57:00 pm +1000", "2024-09-21 0:57:00 am +1000", "2024-09-21 7:57:00 +1000",
            "2024-09-21 7:57:00 xm +1000", "2024-09-21 7:57:00 am", "2024-09-21 12:60:00 am +1000",
            "21/09/2024 7:57:00 am +1000", "2024-09-21 7:57 am +1000", "2024-09-21 7:57:00 a.m +1000", "",
        ])
    func badDates(start: String) throws {
        let outcome = try readPayload(haePayload([haeEntry(start: start), haeEntry(value: "REM")]))
        #expect(outcome.samples.map(\.stage) == [.rem])
        #expect(outcome.report.rejected == 1)
        #expect(outcome.report.sleepRecords == 2)
        let reason = try #require(outcome.report.diagnostics.first?.reason)
        let expected =
            start.isEmpty
            ? "data.metrics[0].data[0]: missing startDate"
            : "data.metrics[0].data[0]: unreadable startDate \"\(start)\""
        #expect(reason == expected)
    }

    @Test(
        "bad entries become diagnostics naming the entry",
        arguments: [
            (haeEntry(value: "Nap"), "unknown sleep value \"Nap\""),
            (
                "{\"startDate\":\"2024-01-01 23:00:00 +0100\",\"endDate\":\"2024-01-02 06:30:00 +0100\",\"value\":\"Core\"}",
                "missing sourceName"
            ),
            (
                haeEntry(end: "2024-01-01 23:00:00 +0100"),
                "endDate 2024-01-01 23:00:00 +0100 is not after startDate 2024-01-01 23:00:00 +0100"
            ),
            (
                "{\"source\":\"W\",\"startDate\":null,\"endDate\":\"2024-01-02 06:30:00 +0100\",\"value\":\"Core\"}",
                "missing startDate"
            ),
            ("\"Core\"", "not an object"), ("[1, 2]", "not an object"),
            (
                haeEntry(start: "1899-12-31 23:00:00 +0000"),
                "startDate 1899-12-31 23:00:00 +0000 is outside the supported dates 1900-01-01 through 2199-12-31"
            ),
        ] as [(String, String)])
    func badEntries(entry: String, reason: String) throws {
        let outcome = try readPayload(haePayload([haeEntry(), entry]))
        #expect(outcome.samples.count == 1)
        #expect(outcome.report.rejected == 1)
        #expect(outcome.report.diagnostics.map(\.reason) == ["data.metrics[0].data[1]: \(reason)"])
    }

    @Test("other metrics and collections are ignored, counted in the records seen, with one diagnostic each")
    func otherMetrics() throws {
        let heartRate =
            "{\"name\":\"heart_rate\",\"units\":\"count/min\",\"data\":[{\"date\":\"2024-01-01 10:00:00 +0100\",\"Min\":50,\"Avg\":55.5,\"Max\":61,\"source\":\"W\"},{\"date\":\"2024-01-01 10:01:00 +0100\",\"Min\":51,\"Avg\":55,\"Max\":60,\"source\":\"W\"}]},"
        let steps = "{\"data\":[{\"qty\":12,\"date\":\"2024-01-01 10:00:00 +0100\"}],\"units\":\"count\"},"
        let text =
            "{\"data\":{\"workouts\":[{\"name\":\"Run\",\"start\":\"x\"}],\"metrics\":[\(heartRate)\(steps){\"name\":\"sleep_analysis\",\"units\":\"hr\",\"data\":[\(haeEntry())]}],\"ecg\":[]}}"
        let outcome = try readPayload(text)
        #expect(outcome.samples.count == 1)
        #expect(outcome.report.recordsSeen == 4)
        #expect(outcome.report.sleepRecords == 1)
        #expect(outcome.report.rejected == 0)
        #expect(
            outcome.report.diagnostics.map(\.reason) == [
                "data.workouts: 1 entries ignored (only sleep_analysis metrics are imported)",
                "data.metrics[0] \"heart_rate\": 2 entries ignored (only sleep_analysis is imported)",
                "data.metrics[1] without a name: 1 entries ignored (only sleep_analysis is imported)",
            ])
    }

    @Test(
        "payloads with nothing to import read as empty",
        arguments: [
            "{\"data\":{\"metrics\":[]}}", "{\"data\":{}}", "{\"data\":{\"metrics\":[],\"workouts\":[]}}",
            "\u{FEFF}{\"data\":{\"metrics\":[{\"name\":\"sleep_analysis\",\"units\":\"hr\",\"data\":[]}]}}\n",
        ])
    func emptyPayloads(text: String) throws {
        let outcome = try readPayload(text)
        #expect(outcome.samples.isEmpty)
        #expect(outcome.report.kind == .healthAutoExport)
        #expect(outcome.report.diagnostics.isEmpty)
        #expect(outcome.report.rejected == 0)
    }

    @Test(
        "summarised nights refuse the payload, telling to turn Summarize Data off",
        arguments: [
            (
                "{\"date\":\"2021-12-18 09:03:36 +0800\",\"asleep\":6.1,\"sleepStart\":\"2021-12-18 02:21:06 +0800\",\"sleepEnd\":\"2021-12-18 08:57:06 +0800\",\"sleepSource\":\"W\",\"inBed\":6.8}",
                false
            ),
            (
                "{\"inBed\":8.1,\"deep\":0.8,\"rem\":1.2,\"core\":3.3,\"awake\":0.1,\"asleep\":0,\"source\":\"a|b\",\"date\":\"2023-01-31 02:44:02 +0800\"}",
                false
            ),
            ("{\"totalSleep\":7,\"sleepStart\":\"2021-12-18 02:21:06 +0800\"}", true),
        ] as [(String, Bool)])
    func summarized(entry: String, isDataBeforeName: Bool) throws {
        let text =
            isDataBeforeName
            ? "{\"data\":{\"metrics\":[{\"data\":[\(haeEntry()),\(entry)],\"name\":\"sleep_analysis\"}]}}"
            : haePayload([haeEntry(), entry])
        let error = try #require(payloadRefusal(text))
        guard case .badFile(_, let line, let reason) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(line == 1)
        #expect(reason == HealthAutoExportReader.summarizedReason)
        #expect(reason.contains("turn \"Summarize Data\" off"))
    }

    @Test("a summary-shaped entry of another metric is no reason to refuse")
    func summaryShapedOtherMetric() throws {
        let outcome = try readPayload(
            haePayload([haeEntry()], otherMetrics: "{\"name\":\"x\",\"data\":[{\"asleep\":1,\"inBed\":2}]},"))
        #expect(outcome.samples.count == 1)
    }

    @Test(
        "JSON that is no payload, or is malformed, is refused naming the problem",
        arguments: [
            ("{\"hello\":\"world\"}", nil, HealthAutoExportReader.notAPayloadReason),
            ("{\"data\":[1]}", nil, HealthAutoExportReader.notAPayloadReason),
            ("{\"data\":\"x\",\"metrics\":[]}", nil, HealthAutoExportReader.notAPayloadReason),
            ("{}", nil, HealthAutoExportReader.notAPayloadReason),
            ("{\"data\":{\"metrics\":[", 1, "malformed JSON: the text ends before its closing ']': it is truncated"),
            ("{\"data\":{}}}", 1, "malformed JSON: '}' where nothing after the document's value belongs"),
            ("{\"data\":{}} x", 1, "malformed JSON: 'x' where nothing after the document's value belongs"),
            ("{\"data\":{\"a\" 1}}", 1, "malformed JSON: '1' where ':' after a member name belongs"),
            ("{\"data\":{\"a\":1,}}", 1, "malformed JSON: '}' where a member name in quotes belongs"),
            ("{\"data\":\n{\"a\":[1,]}}", 2, "malformed JSON: ']' where a value belongs"),
            ("{\"data\":{\"a\":tru}}", 1, "malformed JSON: \"tru\" is not a JSON value"),
            ("{\"data\":{\"a\":01}}", 1, "malformed JSON: \"01\" is not a JSON value"),
            ("{\"data\":{\"a\":\"\\x\"}}", 1, "malformed JSON: an invalid escape \\'x' in a string"),
            ("{\"data\":{\"a\":\"\\u12G4\"}}", 1, "malformed JSON: an invalid \\u escape in a string (4 hex digits)"),
            ("{\"data\":{\"a\":\"x\ty\"}}", 1, "malformed JSON: a control character (0x9) inside a string"),
            ("{\"data\":{\"a\":\"open", 1, "malformed JSON: the text ends inside a string"),
            ("{'data':{}}", 1, "malformed JSON: ''' where a member name in quotes or '}' belongs"),
        ] as [(String, Int?, String)])
    func refused(text: String, line: Int?, reason: String) throws {
        let error = try #require(payloadRefusal(text))
        #expect(error == .badFile(file: error.fileName, line: line, reason: reason))
    }

    @Test("an array or a single value at the top is no payload")
    func notAnObject() throws {
        // Neither starts with "{": the sniffer already refuses them.
        #expect(payloadRefusal("[{\"data\":{}}]")?.description.contains("not an Apple Health export") == true)
        #expect(payloadRefusal("\"data\"")?.description.contains("not an Apple Health export") == true)
    }

    @Test("the kind is decided from the first bytes: '{' after a byte-order mark and white space")
    func sniffing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let reader = HealthImportReader()
        #expect(try reader.kind(of: .path(directory.write("a", "{}"))) == .healthAutoExport)
        #expect(try reader.kind(of: .path(directory.write("b", "\u{FEFF} \n\t{\"data\""))) == .healthAutoExport)
        #expect(try reader.kind(of: .path(directory.write("c", "<HealthData/>"))) == .xml)
    }

    @Test(
        "check() refuses what read() refuses for the payload as a whole, and passes what it imports, bad entries included",
        arguments: [
            haePayload([haeEntry(), haeEntry(start: "yesterday"), "\"x\""]),
            haePayload([haeEntry(), "{\"asleep\":6.1,\"sleepStart\":\"2021-12-18 02:21:06 +0800\"}"]),
            "{\"data\":{\"metrics\":[{\"data\":[\(haeEntry()),{\"inBed\":1}],\"name\":\"sleep_analysis\"}]}}",
            "{\"data\":{\"metrics\":[{\"data\":[{\"inBed\":1}],\"name\":\"other\"}]}}",
            "{\"data\":{\"metrics\":[{\"data\":[{\"inBed\":1,\"startDate\":\"\"}],\"name\":\"sleep_analysis\"}]}}",
            "{\"hello\":1}", "{\"data\":{\"metrics\":[]}", "{\"data\":{}} {", "{\"data\":[]}",
            "sourceName,startDate,endDate,value\n", "<HealthData/>", "\u{FEFF}{\"data\":{}}",
        ])
    func checkAgreesWithRead(text: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("payload", text)
        let reader = HealthImportReader()
        let read = Result { try reader.read(.path(path)) { _, _ in }.kind }
        let checked = Result { try reader.check(.path(path)) }
        switch (read, checked) {
        case (.success(let readKind), .success(let checkedKind)):
            #expect(readKind == checkedKind)
        case (.failure(let readError), .failure(let checkedError)):
            #expect(readError as? ImportError == checkedError as? ImportError)
        default:
            Issue.record("read: \(read), check: \(checked)")
        }
    }

    @Test("members in any order: data before name gives the same samples and diagnostics")
    func memberOrder() throws {
        let samples = fixtureSamples(seed: 5, nights: 20)
        let nameFirst = try readPayload(
            String(decoding: HealthAutoExportWriter.bytes(samples: samples), as: UTF8.self))
        let dataFirst = try readPayload(
            String(
                decoding: HealthAutoExportWriter.bytes(
                    samples: samples, layout: .init(isDataBeforeName: true, fillerBytes: 5000)), as: UTF8.self))
        #expect(nameFirst.samples == dataFirst.samples)
        #expect(nameFirst.report.accepted == samples.count)
        #expect(dataFirst.report.recordsSeen > samples.count)
        #expect(dataFirst.report.diagnostics.count == 1)
    }

    @Test(
        "round trip of generated nights in every layout, fed in chunks as small as one byte",
        arguments: [1, 7, 4096, 1 << 20])
    func roundTrip(chunkBytes: Int) throws {
        let samples = fixtureSamples(seed: 11, nights: 15).map { sample -> SleepSample in
            var sample = sample
            // The payload has no zones; the stage labels of asleepUnspecified read back alike.
            sample.timeZoneIdentifier = nil
            sample.printedUTCOffset = sample.printedUTCOffset ?? 3600
            return sample
        }
        let layouts: [HealthAutoExportWriter.Layout] = [
            .init(), .init(isTwelveHour: true), .init(isDataBeforeName: true, escapesText: true),
            .init(isTwelveHour: true, isDataBeforeName: true, fillerBytes: 20_000, escapesText: true, isPretty: true),
        ]
        for layout in layouts {
            let text = String(decoding: HealthAutoExportWriter.bytes(samples: samples, layout: layout), as: UTF8.self)
            let outcome = try readPayload(text, options: ReaderOptions(chunkBytes: chunkBytes))
            #expect(outcome.samples == samples, "\(layout)")
            #expect(outcome.report.rejected == 0)
        }
    }

    @Test("escaped control characters are replaced by U+FFFD and counted; invalid UTF-8 rejects the entry")
    func characters() throws {
        var outcome = try readPayload(haePayload([haeEntry(source: "Watch\\u0000\\u000b\\ud800x")]))
        #expect(outcome.samples.map(\.source) == ["Watch\u{FFFD}\u{FFFD}\u{FFFD}x"])
        #expect(outcome.report.warnings.first?.hasPrefix("replaced 3 character(s)") == true)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var bytes = Array(haePayload([haeEntry(source: "W#")]).utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "#"))!] = 0xFF
        outcome = try readAll(.path(try directory.write("bad.json", bytes: bytes)))
        #expect(outcome.samples.isEmpty)
        #expect(outcome.report.diagnostics.map(\.reason) == ["data.metrics[0].data[0]: invalid UTF-8 (byte 0xff)"])
    }

    @Test("limits: a value past the record cap rejects its entry; nesting past the cap refuses the payload")
    func limits() throws {
        let long = String(repeating: "x", count: 5000)
        let options = ReaderOptions(maximumSleepRecordBytes: 4096, chunkBytes: 1000)
        let outcome = try readPayload(haePayload([haeEntry(source: long), haeEntry()]), options: options)
        #expect(outcome.samples.count == 1)
        #expect(
            outcome.report.diagnostics.map(\.reason) == [
                "data.metrics[0].data[0]: a value longer than 4096 bytes, the configured cap for one sleep record"
            ])
        // A long value of an ignored member costs nothing.
        let ignored = try readPayload(
            "{\"data\":{\"metrics\":[],\"note\":\"\(String(repeating: "y", count: 100_000))\"}}", options: options)
        #expect(ignored.report.diagnostics.isEmpty)
        let deep = "{\"data\":{\"x\":" + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}}"
        let error = try #require(payloadRefusal(deep))
        #expect(
            error
                == .badFile(
                    file: error.fileName, line: 1, reason: "malformed JSON: containers nested deeper than 256 levels"))
    }

    @Test("entries held until their metric's name are capped: past the cap the payload is refused, read or checked")
    func entriesBeforeName() throws {
        let options = ReaderOptions(maximumEntriesBeforeName: 5)
        let entries = (0..<6).map { _ in "{}" }.joined(separator: ",")
        let dataFirst = "{\"data\":{\"metrics\":[{\"units\":\"x\",\"data\":[\(entries)],\"name\":\"other\"}]}}"
        let reason =
            "data.metrics[0] holds more than 5 entries before its name, the configured cap for entries held until a metric's name is known: send smaller payloads (the app's Batch Requests)"
        let error = try #require(payloadRefusal(dataFirst, options: options))
        #expect(error == .badFile(file: error.fileName, line: 1, reason: reason))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("payload.json", dataFirst)
        #expect(throws: ImportError.badFile(file: path, line: 1, reason: reason)) {
            try HealthImportReader(options: options).check(.path(path))
        }
        // With the name first nothing is held: no cap.
        let nameFirst = haePayload((0..<50).map { _ in haeEntry() })
        #expect(try readPayload(nameFirst, options: options).report.sleepRecords == 50)
    }

    @Test("many bad entries keep the first diagnostics and count the rest by kind, also when data comes first")
    func manyRejections() throws {
        let entries = (0..<30).map { _ in haeEntry(value: "Nap") }
        let options = ReaderOptions(maximumDiagnostics: 10)
        for text in [
            haePayload(entries),
            "{\"data\":{\"metrics\":[{\"data\":[\(entries.joined(separator: ","))],\"name\":\"sleep_analysis\"}]}}",
        ] {
            let outcome = try readPayload(text, options: options)
            #expect(outcome.report.rejected == 30)
            #expect(outcome.report.diagnostics.count == 10)
            #expect(outcome.report.diagnostics.last?.reason == "data.metrics[0].data[9]: unknown sleep value \"Nap\"")
            #expect(outcome.report.diagnosticsNotKept == 20)
            #expect(outcome.report.diagnosticsNotKeptByReason == ["unknown sleep value": 20])
        }
    }
}

extension ImportError {
    /// The file a bad-file error names.
    var fileName: String {
        switch self {
        case .badFile(let file, _, _): return file
        case .io(let file, _): return file
        }
    }
}

/// The real payloads in Fixtures/hae (irvinlim/apple-health-ingester, MIT; see its README).
@Suite("Health Auto Export real payloads")
struct HealthAutoExportFixtureTests {
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hae/\(name)").path
    }

    @Test func perSample() throws {
        let outcome = try readAll(.path(Self.path("hae-unaggregated-sleep-sample.json")))
        // 2021-12-18 is day 18979; 02:21:06 +0800 is 2021-12-17 18:21:06 UTC.
        let start: Int64 = 18_978 * 86_400 + 18 * 3600 + 21 * 60 + 6
        #expect(
            outcome.samples == [
                SleepSample(
                    source: "Irvin's Apple Watch", start: start, end: start + 6 * 3600 + 36 * 60, stage: .core,
                    timeZoneIdentifier: nil, printedUTCOffset: 28_800)
            ])
        #expect(outcome.locations.map(\.line) == [8])
        #expect(outcome.report.kind == .healthAutoExport)
        #expect(outcome.report.recordsSeen == 1)
        #expect(outcome.report.diagnostics.isEmpty)
        #expect(outcome.report.inputBytes == 337)
    }

    @Test(arguments: [("hae-aggregated-sleep-pre-6.6.2.json", 8), ("hae-aggregated-sleep-phases-6.6.2.json", 6)])
    func summarized(name: String, line: Int) throws {
        let error = try #require(badFileReason(.path(Self.path(name))))
        #expect(
            error
                == .badFile(file: Self.path(name), line: line, reason: HealthAutoExportReader.summarizedReason))
    }
}
