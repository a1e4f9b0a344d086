import Foundation
import Testing

@testable import HealthImport

/// Inputs refused as a whole, each with its exact reason.
struct BadFileTests {
    private func reason(of error: ImportError?) -> String? {
        guard case .badFile(_, _, let reason) = error else { return nil }
        return reason
    }

    @Test func notZipXMLOrCSV() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let png = try directory.write(
            "photo.png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        #expect(
            reason(of: badFileReason(.path(png)))?.hasPrefix("not an Apple Health export: neither a zip")
                == true)
        let prose = try directory.write("notes.txt", "Dear diary,\nI slept well.\n")
        #expect(
            reason(of: badFileReason(.path(prose)))?.hasPrefix("not an Apple Health export") == true)
        let empty = try directory.write("empty", "")
        #expect(
            badFileReason(.path(empty)) == .badFile(file: empty, line: nil, reason: "the input is empty"))
    }

    @Test func missingFileIsAnIOError() {
        let error = badFileReason(.path("/nonexistent/export.zip"))
        #expect(error == .io(file: "/nonexistent/export.zip", reason: "No such file or directory"))
        #expect(error?.description == "cannot read /nonexistent/export.zip: No such file or directory")
    }

    @Test func zipWithoutExport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("notes.xml", "<?xml version=\"1.0\"?>\n<Notes/>\n")
        try directory.write("export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n")
        try runTool(
            "/usr/bin/zip", ["-q", "other.zip", "notes.xml", "export_cda.xml"], in: directory.url)
        let error = badFileReason(.path(directory.path("other.zip")))
        #expect(
            reason(of: error)
                == "no Apple Health export in this zip (no entry with a <HealthData> root, such as apple_health_export/export.xml)"
        )
    }

    @Test func truncatedAndCorruptZip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var body = ""
        for night in 0..<400 {
            body += sleepRecord(source: "Watch \(night)")
        }
        try directory.write("export.xml", healthXML(body))
        try runTool("/usr/bin/zip", ["-q", "good.zip", "export.xml"], in: directory.url)
        let zipped = try [UInt8](Data(contentsOf: directory.url.appendingPathComponent("good.zip")))
        let truncated = try directory.write(
            "truncated.zip", bytes: Array(zipped.prefix(zipped.count / 2)))
        let truncatedReason = reason(of: badFileReason(.path(truncated)))
        #expect(truncatedReason?.hasPrefix("the zip archive is truncated or damaged") == true)

        var corrupt = zipped
        for index in 200..<600 { corrupt[index] ^= 0x5A }
        let corruptPath = try directory.write("corrupt.zip", bytes: corrupt)
        #expect(
            reason(of: badFileReason(.path(corruptPath)))?.hasPrefix(
                "the zip archive is truncated or damaged") == true)
    }

    @Test func xmlWithoutHealthDataRoot() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let other = try directory.write(
            "other.xml", "<?xml version=\"1.0\"?>\n<!-- x -->\n<Notes>\n</Notes>\n")
        #expect(
            badFileReason(.path(other))
                == .badFile(
                    file: other, line: 3,
                    reason: "the root element is <Notes>, not <HealthData>: not an Apple Health export"))
        let prologOnly = try directory.write(
            "prolog.xml", "<?xml version=\"1.0\"?>\n<!-- nothing -->\n")
        #expect(
            badFileReason(.path(prologOnly))
                == .badFile(
                    file: prologOnly, line: nil,
                    reason: "no <HealthData> root element: not an Apple Health export"))
    }

    @Test func xmlWithoutClosingTag() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = healthXML(sleepRecord()).replacingOccurrences(of: "</HealthData>\n", with: "")
        let path = try directory.write("cut.xml", text)
        // Four lines: declaration, root, ExportDate, record; the file ends on line 5.
        #expect(
            badFileReason(.path(path))
                == .badFile(
                    file: path, line: 5,
                    reason:
                        "the export ends before its closing </HealthData>: the file is truncated or damaged"))
    }

    @Test func doctypeNeverClosed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData ANY>\n<HealthData>\n</HealthData>\n"
        let path = try directory.write("open.xml", text)
        #expect(
            badFileReason(.path(path))
                == .badFile(file: path, line: 2, reason: "the DOCTYPE is never closed (no \"]>\")"))
    }

    @Test func doctypeWithEntities() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData ANY>
            <!ENTITY lol "lol">
            <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <HealthData>&lol2;</HealthData>

            """
        let path = try directory.write("laughs.xml", laughs)
        let expected = ImportError.badFile(
            file: path, line: 4,
            reason:
                "the DOCTYPE declares entities (<!ENTITY>); refused: entity expansion and external entities are never processed"
        )
        #expect(badFileReason(.path(path)) == expected)
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
            <HealthData>&xxe;</HealthData>

            """
        let externalPath = try directory.write("xxe.xml", external)
        #expect(
            reason(of: badFileReason(.path(externalPath)))?.hasPrefix("the DOCTYPE declares entities")
                == true)
    }

    @Test func entrySizeCap() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var body = ""
        for night in 0..<200 { body += sleepRecord(source: "Watch \(night)") }
        try directory.write("export.xml", healthXML(body))
        try runTool("/usr/bin/zip", ["-q", "export.zip", "export.xml"], in: directory.url)
        let options = ReaderOptions(maximumEntryBytes: 10_000)
        let error = badFileReason(.path(directory.path("export.zip")), options: options)
        #expect(
            error
                == .badFile(
                    file: directory.path("export.zip"), line: nil,
                    reason: "entry export.xml inflates to more than 10000 bytes, the configured cap"))
        // The same zip passes with the default cap.
        #expect(try readAll(.path(directory.path("export.zip"))).samples.count == 200)
    }

    @Test func compressionRatioAboveLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A valid export padded with 64 MiB of spaces deflates at more than 1000:1.
        var text = Array(healthXML(sleepRecord()).utf8)
        let padding = [UInt8](repeating: 0x20, count: 64 << 20)
        text.insert(contentsOf: padding, at: text.count - "</HealthData>\n".utf8.count)
        try directory.write("export.xml", bytes: text)
        try runTool("/usr/bin/zip", ["-q", "-9", "bomb.zip", "export.xml"], in: directory.url)
        let error = badFileReason(.path(directory.path("bomb.zip")))
        #expect(
            error
                == .badFile(
                    file: directory.path("bomb.zip"), line: nil,
                    reason: "entry export.xml inflates more than 1000:1; refused as a possible zip bomb"))
    }

    @Test func csvWithoutRequiredColumns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "s.csv", "sourceName,startDate,stage\nW,2024-01-01T00:00:00Z,InBed\n")
        #expect(
            badFileReason(.path(path))
                == .badFile(
                    file: path, line: 1,
                    reason:
                        "the CSV header lacks the column(s) endDate; required: sourceName, startDate, endDate, value"
                ))
    }
}
