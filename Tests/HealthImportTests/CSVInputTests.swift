import SleepCore
import Testing

@testable import HealthImport

/// CSV dialects and bad rows.
struct CSVInputTests {
    // 2024-01-01 is day 19723.
    private let night = SleepSample(
        source: "Anna, \"the\" sleeper\nWatch", start: 19_723 * 86_400 + 22 * 3600,
        end: 19_724 * 86_400 + 5 * 3600,
        stage: .core, timeZoneIdentifier: "Europe/Paris", printedUTCOffset: 3600)

    @Test(arguments: [
        // Comma, LF, quoted field with delimiter, doubled quote and a line break.
        "sourceName,startDate,endDate,value,timeZone\n\"Anna, \"\"the\"\" sleeper\nWatch\",2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,HKCategoryValueSleepAnalysisAsleepCore,Europe/Paris\n",
        // Semicolon, CRLF, byte-order mark, short column names, short stage name.
        "\u{FEFF}source;start;end;value;HKTimeZone\r\n\"Anna, \"\"the\"\" sleeper\nWatch\";2024-01-01 23:00:00 +0100;2024-01-02 06:00:00 +0100;AsleepCore;Europe/Paris\r\n",
        // Tab, no final line break, metadata column holding HKTimeZone, ISO dates with offset.
        "type\tsourceName\tstartDate\tendDate\tvalue\tmetadata\nHKCategoryTypeIdentifierSleepAnalysis\t\"Anna, \"\"the\"\" sleeper\nWatch\"\t2024-01-01T23:00:00+01:00\t2024-01-02T06:00:00+01:00\tHKCategoryValueSleepAnalysisAsleepCore\t{\"HKTimeZone\":\"Europe/Paris\",\"HKWasUserEntered\":0}",
    ])
    func dialects(text: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("samples.csv", text)
        // Chunks of 1 and 5 bytes split the BOM, quotes and CRLF across chunk boundaries.
        for chunkBytes in [1, 5, 1 << 20] {
            let outcome = try readAll(.path(path), options: ReaderOptions(chunkBytes: chunkBytes))
            #expect(outcome.report.kind == .csv)
            #expect(outcome.samples == [night], "chunks of \(chunkBytes) bytes")
            #expect(outcome.locations == [SampleLocation(file: path, line: 2)])
        }
    }

    @Test func otherTypesSkippedAndBadRowsReportedWithTheirLines() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = """
            type,sourceName,startDate,endDate,value,time_zone
            HKQuantityTypeIdentifierHeartRate,Watch,2024-01-01T00:00:00Z,2024-01-01T00:00:00Z,61,
            HKCategoryTypeIdentifierSleepAnalysis,"Two
            lines",2024-01-01T00:00:00Z,2024-01-01T00:00:00Z,InBed,
            HKCategoryTypeIdentifierSleepAnalysis,Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00.6Z,Asleep,

            HKCategoryTypeIdentifierSleepAnalysis,Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,Snoring,
            HKCategoryTypeIdentifierSleepAnalysis,,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,Awake,
            HKCategoryTypeIdentifierSleepAnalysis,Watch,tomorrow,2024-01-01T07:00:00Z,Awake,

            """
        let path = try directory.write("samples.csv", text)
        let outcome = try readAll(.path(path))
        #expect(
            outcome.samples == [
                SleepSample(
                    source: "Watch", start: 19_723 * 86_400, end: 19_723 * 86_400 + 7 * 3600 + 1,
                    stage: .asleepUnspecified, printedUTCOffset: 0)
            ])
        #expect(outcome.locations.map { $0.line } == [5])
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(
                    file: path, line: 3,
                    reason: "endDate 2024-01-01T00:00:00Z is not after startDate 2024-01-01T00:00:00Z"),
                ImportDiagnostic(file: path, line: 7, reason: "unknown sleep value \"Snoring\""),
                ImportDiagnostic(file: path, line: 8, reason: "missing sourceName"),
                ImportDiagnostic(file: path, line: 9, reason: "unreadable startDate \"tomorrow\""),
            ])
        #expect(outcome.report.recordsSeen == 6)
        #expect(outcome.report.sleepRecords == 5)
        #expect(outcome.report.rejected == 4)
    }

    @Test func paddingIsTrimmedAndInnerQuotesKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Spaces, a tab and no-break spaces (U+00A0, U+3000) around values; a quote inside
        // an unquoted field is an ordinary character.
        let text =
            "sourceName,startDate,endDate,value,timeZone\n"
            + "  Anna's 5\" Watch\t, 2024-01-01 23:00:00 +0100 ,2024-01-02 06:00:00 +0100,"
            + "\u{00A0}AsleepCore\u{3000},\u{00A0}Europe/Paris \n"
        let path = try directory.write("samples.csv", text)
        for chunkBytes in [1, 7, 1 << 20] {
            let outcome = try readAll(.path(path), options: ReaderOptions(chunkBytes: chunkBytes))
            #expect(
                outcome.samples == [
                    SleepSample(
                        source: "Anna's 5\" Watch", start: night.start, end: night.end, stage: .core,
                        timeZoneIdentifier: "Europe/Paris", printedUTCOffset: 3600)
                ], "chunks of \(chunkBytes) bytes")
            #expect(outcome.report.rejected == 0)
        }
    }

    @Test func unterminatedQuoteRejectsTheLastRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text =
            "sourceName,startDate,endDate,value\n\"Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,Awake\n"
        let path = try directory.write("samples.csv", text)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.isEmpty)
        #expect(
            outcome.report.diagnostics == [
                ImportDiagnostic(
                    file: path, line: 2, reason: "a quoted field is not closed before the end of the file")
            ])
    }

    @Test(arguments: [
        // A JSON object, as the `metadata` column of earlier versions held it.
        ("{\"HKTimeZone\":\"Europe/Paris\",\"HKWasUserEntered\":0}", CSVMetadata.Outcome.timeZone("Europe/Paris")),
        // KEY=VALUE pairs.
        ("HKWasUserEntered=0; HKTimeZone=America/New_York", .timeZone("America/New_York")),
        ("HKWasUserEntered=0", .noTimeZone),
        ("", .noTimeZone),
        // A Python dict, and Python's list of key/value entries (a `sub_children` column).
        ("{'HKTimeZone': 'Europe/Berlin', 'HKWasUserEntered': True}", .timeZone("Europe/Berlin")),
        ("[{'key': 'HKTimeZone', 'value': 'Europe/Amsterdam'}]", .timeZone("Europe/Amsterdam")),
        (
            "[{'key': 'HKWasUserEntered', 'value': 1}, {'value': u'Asia/Tokyo', 'key': 'HKTimeZone'}]",
            .timeZone("Asia/Tokyo")
        ),
        // The same list as JSON, and nested one level down.
        ("[{\"key\": \"HKTimeZone\", \"value\": \"Europe\\/London\"}]", .timeZone("Europe/London")),
        ("{\"MetadataEntry\": [{\"key\": \"HKTimeZone\", \"value\": \"UTC\"}]}", .timeZone("UTC")),
        ("[{'key': 'HKWasUserEntered', 'value': 1}]", .noTimeZone),
        ("[]", .noTimeZone),
        ("{'HKTimeZone': None}", .noTimeZone),
        // Not in any form read: unreadable, never silently ignored.
        ("[{'key': 'HKTimeZone', 'value': 'Europe/Amsterdam'}", .unreadable),
        ("{'HKTimeZone': ['Europe/Paris']}", .unreadable),
        ("time zone is Europe/Paris", .unreadable),
        ("[{'key': 'HKTimeZone', 'value': 'Europe/Paris'}] trailing", .unreadable),
        (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), .unreadable),
    ])
    func metadataTimeZoneForms(text: String, expected: CSVMetadata.Outcome) {
        #expect(CSVMetadata.timeZone(in: text) == expected)
    }

    @Test(
        "HKTimeZone is read from a metadata column holding key/value entries",
        arguments: [
            // Python literals, as a converter flattening the export with pandas writes them.
            ("sub_children", "\"[{'key': 'HKTimeZone', 'value': 'Europe/Paris'}]\""),
            // JSON, in a column named after the XML element.
            ("MetadataEntry", "\"[{\"\"key\"\": \"\"HKTimeZone\"\", \"\"value\"\": \"\"Europe/Paris\"\"}]\""),
            ("metadata", "\"{'HKTimeZone': 'Europe/Paris', 'HKWasUserEntered': 1}\""),
        ])
    func timeZoneFromMetadataColumn(column: String, field: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text =
            "sourceName,startDate,endDate,value,\(column)\n"
            + "\"Anna, \"\"the\"\" sleeper\nWatch\",2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,AsleepCore,\(field)\n"
        let path = try directory.write("samples.csv", text)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples == [night])
        #expect(outcome.report.warnings.isEmpty)
    }

    @Test("a metadata column that cannot be read is a warning, with its name, rows and first line")
    func unreadableMetadataColumnIsAWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = """
            sourceName,startDate,endDate,value,timeZone,sub_children
            Watch,2024-01-01T22:00:00Z,2024-01-02T05:00:00Z,AsleepCore,,"[{'key': 'HKTimeZone', 'value': 'Europe/Paris'}]"
            Watch,2024-01-02T22:00:00Z,2024-01-03T05:00:00Z,AsleepCore,,"[{'key': 'HKTimeZone', 'value': 'Europe/Paris'"
            Watch,2024-01-03T22:00:00Z,2024-01-04T05:00:00Z,AsleepCore,Europe/Rome,"not metadata"
            Watch,2024-01-04T22:00:00Z,2024-01-05T05:00:00Z,AsleepCore,,"<MetadataEntry key=HKTimeZone>"
            Watch,2024-01-05T22:00:00Z,2024-01-06T05:00:00Z,AsleepCore,,

            """
        let path = try directory.write("samples.csv", text)
        let outcome = try readAll(.path(path))
        // Unreadable metadata never rejects a row: its zone is simply not known. A row with
        // a time zone column of its own does not need its metadata.
        #expect(outcome.samples.map(\.timeZoneIdentifier) == ["Europe/Paris", nil, "Europe/Rome", nil, nil])
        #expect(
            outcome.report.warnings == [
                "the metadata column \"sub_children\" could not be read on 2 row(s), the first on line 3 (read are a JSON or Python object, a list of key/value entries, or KEY=VALUE pairs): no HKTimeZone was taken from it"
            ])
    }
}
