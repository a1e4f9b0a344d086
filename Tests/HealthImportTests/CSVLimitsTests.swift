import Foundation
import SleepCore
import Testing

@testable import HealthImport

/// The CSV reader holds at most ``ReaderOptions/maximumCSVRecordBytes`` of one record
/// (issue 11, item 1): a line that never ends, or a quote never closed, refuses the file
/// at the cap instead of growing without end (a 2 GB line reached 4.1 GB of memory).
struct CSVLimitsTests {
    static let cap = 1000
    static let header = "sourceName,startDate,endDate,value\n"
    static let rowStart = "Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,"

    /// A row of exactly `bytes` bytes before its line feed, whose stage is unknown.
    static func row(bytes: Int) -> String {
        rowStart + String(repeating: "x", count: bytes - rowStart.utf8.count)
    }

    static func read(_ text: String, chunkBytes: Int) throws -> Result<ReadReport, ImportError> {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("samples.csv", text)
        do {
            let outcome = try readAll(
                .path(path), options: ReaderOptions(maximumCSVRecordBytes: cap, chunkBytes: chunkBytes))
            return .success(outcome.report)
        } catch let error as ImportError {
            guard case .badFile(_, let line, let reason) = error else { return .failure(error) }
            return .failure(.badFile(file: "samples.csv", line: line, reason: reason))
        }
    }

    static let tooLong = "a CSV record longer than 1000 bytes, the configured cap"
    static let quoteOpen =
        "a quoted CSV field is still open after 1000 bytes, the configured cap for one record: is its closing quote missing?"

    /// What reading a text must give.
    enum Expectation: Sendable {
        /// A report with one rejected record (the stage `xxx...` is unknown).
        case read
        /// The file refused at the cap, naming this line.
        case refused(line: Int, reason: String)
    }

    @Test(
        "a record one byte over the cap refuses the file, naming its line and the cap",
        arguments: [
            // A line of exactly the cap is read (and rejected for its stage)...
            (header + row(bytes: cap) + "\n", .read),
            (header + row(bytes: cap), .read),
            // ...one byte more is refused, with or without its line break. A CR before
            // the line feed is part of the record.
            (header + row(bytes: cap + 1) + "\n", .refused(line: 2, reason: tooLong)),
            (header + row(bytes: cap + 1), .refused(line: 2, reason: tooLong)),
            (header + row(bytes: cap) + "\r\n", .refused(line: 2, reason: tooLong)),
            // A long line further down names its own line.
            (
                header + row(bytes: 60) + "\n" + row(bytes: 60) + "\n" + row(bytes: cap + 1) + "\n",
                .refused(line: 4, reason: tooLong)
            ),
            // A quote never closed runs into the same cap, line breaks and all.
            (header + "\"" + String(repeating: "open quote\n", count: 100), .refused(line: 2, reason: quoteOpen)),
            // Only delimiters: the fields of a row count towards the cap too.
            (header + String(repeating: ",", count: cap + 1) + "\n", .refused(line: 2, reason: tooLong)),
        ] as [(String, Expectation)])
    func recordCap(text: String, expected: Expectation) throws {
        for chunkBytes in [1, 7, 1 << 20] {
            let result = try Self.read(text, chunkBytes: chunkBytes)
            switch (result, expected) {
            case (.success(let report), .read):
                #expect(report.rejected == 1, "chunks of \(chunkBytes)")
            case (.failure(let error), .refused(let line, let reason)):
                #expect(
                    error == .badFile(file: "samples.csv", line: line, reason: reason), "chunks of \(chunkBytes)")
            default:
                Issue.record("chunks of \(chunkBytes): \(result), expected \(expected)")
            }
        }
    }

    @Test("columns after the last one read are counted, not kept")
    func extraColumnsAreNotKept() throws {
        // 100 extra columns after the four read: counted, not stored, and the row reads normally.
        let extra = String(repeating: ",padding", count: 100)
        let text =
            "sourceName,startDate,endDate,value" + String(repeating: ",extra", count: 100) + "\n"
            + "Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,AsleepCore\(extra)\n"
        let report = try Self.read(text, chunkBytes: 1 << 20).get()
        #expect(report.accepted == 1)
        #expect(report.rejected == 0)
    }
}
