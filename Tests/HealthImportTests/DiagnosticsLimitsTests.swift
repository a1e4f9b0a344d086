import ExportFixtures
import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// Diagnostics have a bounded size whatever the input (issue 11, item 2): a reason quotes
/// at most a short prefix of a value, at most ``ReaderOptions/maximumDiagnostics`` are
/// kept, and the rest are counted by kind of reason. Before, a 1.9 MB zip of rejected
/// records with long values drove the importer to 3.0 GB and an audit row PostgreSQL
/// refused.
struct DiagnosticsLimitsTests {
    static let sleepType = "HKCategoryTypeIdentifierSleepAnalysis"

    static func record(source: String? = "Watch", start: String, end: String, value: String) -> String {
        let sourceAttribute = source.map { " sourceName=\"\($0)\"" } ?? ""
        return
            " <Record type=\"\(sleepType)\"\(sourceAttribute) startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"/>\n"
    }

    @Test("a long value is quoted as its first 64 bytes and its size")
    func longValuesAreQuotedInShort() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nap = String(repeating: "Nap", count: 70_000)
        let fraction = String(repeating: "0", count: 100_000)
        let body =
            Self.record(start: "2024-01-01 23:00:00 +0100", end: "2024-01-02 06:00:00 +0100", value: nap)
            + Self.record(
                start: "2024-01-01 23:00:00.\(fraction) +0100", end: "2024-01-01 22:00:00.\(fraction) +0100",
                value: "AsleepCore")
            + Self.record(start: "x\(fraction)", end: "2024-01-02 06:00:00 +0100", value: "AsleepCore")
        let path = try directory.write("export.xml", healthXML(body))
        let report = try readAll(.path(path)).report
        let napPrefix = String(repeating: "Nap", count: 21) + "N"
        let datePrefix = "2024-01-01 23:00:00." + String(repeating: "0", count: 64 - 20)
        let endPrefix = "2024-01-01 22:00:00." + String(repeating: "0", count: 64 - 20)
        #expect(
            report.diagnostics.map(\.reason) == [
                "unknown sleep value \"\(napPrefix)…\" (210000 bytes)",
                "endDate \(endPrefix)… is not after startDate \(datePrefix)…",
                "unreadable startDate \"x\(String(repeating: "0", count: 63))…\" (100001 bytes)",
            ])
        #expect(report.diagnostics.allSatisfy { $0.reason.utf8.count <= ImportDiagnostic.maximumReasonBytes })
    }

    @Test("control characters in a value are written out, never passed on")
    func controlCharactersAreEscaped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A control character in a reason could drive the terminal that prints it, and a
        // NUL would make the stored JSON unreadable to PostgreSQL (jsonb refuses \u0000).
        // The readers replace C0 controls in sleep records by U+FFFD; the C1 controls
        // (U+0080 to U+009F) and DEL they keep are written out in a reason, as are those in
        // an element name.
        let text =
            "sourceName,startDate,endDate,value\nWatch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,Nap\u{9B}2J\u{7F}\u{85}\n"
        let path = try directory.write("samples.csv", text)
        let report = try readAll(.path(path)).report
        #expect(report.diagnostics.map(\.reason) == ["unknown sleep value \"Nap\\u{9B}2J\\u{7F}\\u{85}\""])

        let body =
            " <Record type=\"\(Self.sleepType)\" sourceName=\"W\" startDate=\"2024-01-01 23:00:00 +0100\" endDate=\"2024-01-02 06:00:00 +0100\" value=\"AsleepCore\"><a\u{1B}[2J></a\u{0}></Record>\n"
        let xmlPath = try directory.write("export.xml", healthXML(body))
        let xmlReport = try readAll(.path(xmlPath)).report
        #expect(
            xmlReport.diagnostics.map(\.reason) == [
                "broken markup in sleep record: </a\\u{0}> where </a\\u{1B}[2J> belongs"
            ])
    }

    @Test("control characters in CSV fields become U+FFFD, as in XML, and a warning counts them")
    func csvControlCharactersAreReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Before, the NUL reached the sample and PostgreSQL refused it (text cannot hold
        // a NUL): the whole import failed.
        let text =
            "sourceName,startDate,endDate,value\nWat\u{0}ch\u{0B},2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,AsleepCore\n"
        let path = try directory.write("samples.csv", text)
        let outcome = try readAll(.path(path))
        #expect(outcome.samples.map(\.source) == ["Wat\u{FFFD}ch\u{FFFD}"])
        #expect(
            outcome.report.warnings == [
                "replaced 2 character(s) XML 1.0 forbids (such as a vertical tab) with U+FFFD in sleep records"
            ])
    }

    @Test("a long file name is shortened in each diagnostic")
    func longFileNamesAreShortened() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folders = (0..<4).map { String(repeating: Character(UnicodeScalar(UInt8(97 + $0))), count: 100) }
        let name = folders.joined(separator: "/") + "/export.xml"
        let body = Self.record(start: "2024-01-01 23:00:00 +0100", end: "2024-01-02 06:00:00 +0100", value: "Nap")
        let path = try directory.write(name, healthXML(body))
        #expect(path.utf8.count > ImportDiagnostic.maximumFileBytes)
        let report = try readAll(.path(path)).report
        #expect(report.diagnostics.map(\.file) == [String(path.utf8.prefix(ImportDiagnostic.maximumFileBytes))! + "…"])
    }

    @Test("diagnostics beyond the limit are counted by kind of reason, and a warning says so")
    func notKeptAreCountedByReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let start = "2024-01-01 23:00:00 +0100"
        let end = "2024-01-02 06:00:00 +0100"
        var body = ""
        for index in 0..<10 { body += Self.record(start: start, end: end, value: "Nap\(index)") }
        for _ in 0..<5 { body += Self.record(start: "soon", end: end, value: "AsleepCore") }
        for _ in 0..<3 { body += Self.record(source: nil, start: start, end: end, value: "AsleepCore") }
        body += Self.record(start: start, end: end, value: "AsleepCore")
        let path = try directory.write("export.xml", healthXML(body))
        let report = try readAll(.path(path), options: ReaderOptions(maximumDiagnostics: 4)).report
        #expect(report.accepted == 1)
        #expect(report.rejected == 18)
        #expect(report.diagnostics.map(\.reason) == (0..<4).map { "unknown sleep value \"Nap\($0)\"" })
        #expect(report.diagnosticsNotKept == 14)
        #expect(
            report.diagnosticsNotKeptByReason == [
                "unknown sleep value": 6, "unreadable startDate": 5, "missing sourceName": 3,
            ])
        #expect(
            report.warnings == [
                "14 rejected record(s) beyond the first 4 diagnostics not kept: 6 unknown sleep value, 5 unreadable startDate, 3 missing sourceName"
            ])
    }

    @Test("a zip of many rejected records with long values gives a report of bounded size")
    func manyLongRejectionsStayBounded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 1 200 records rejected for 8 KiB stage values, a good one every hundredth: 10 MB
        // of XML. The value repeats a 4 KiB block of seeded letters, so the zip is small
        // without reaching the 1000:1 ratio the reader refuses as a zip bomb.
        var state: UInt64 = 42
        let block = String(
            (0..<4096).map { _ -> Character in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
            })
        let value = block + block
        let path = directory.path("export.zip")
        try ExportZipWriter.write(toPath: path) { sink in
            try sink.write(healthXML("").replacingOccurrences(of: "</HealthData>\n", with: ""))
            for index in 0..<1_212 {
                let isGood = index % 101 == 0
                try sink.write(
                    Self.record(
                        start: "2024-01-01 23:00:00 +0100", end: "2024-01-02 06:00:00 +0100",
                        value: isGood ? "AsleepCore" : value))
            }
            try sink.write("</HealthData>\n")
        }
        let report = try readAll(.path(path)).report
        #expect(report.accepted == 12)
        #expect(report.rejected == 1_200)
        #expect(report.diagnostics.count == ReaderOptions.standard.maximumDiagnostics)
        #expect(report.diagnosticsNotKeptByReason == ["unknown sleep value": 200])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try encoder.encode(report.diagnostics)
        // Each diagnostic: file, line and a reason of about 110 bytes here; before the fix
        // 10 000 were kept with the whole value, 10 MB of JSON for this zip.
        #expect(json.count <= report.diagnostics.count * 300, "\(json.count) bytes of JSON")
    }
}
