import ExportFixtures
import Foundation
import LedgerCrypto
import Testing

@testable import HealthImport

/// Bounded work in every zip entry (issue 20, F2): entries that are not the export are
/// skipped without inflating when the zip is a file, and counted (towards the 1000:1 ratio
/// and the inflated-bytes cap) when it arrives on a stream, where they must be inflated to
/// be skipped. The hostile zips are built here: entries of zeros, streamed with data
/// descriptors (so a streaming reader only finds their end by inflating them), beside a
/// small export.
@Suite("Zip bounds")
struct ZipBoundsTests {
    /// How many entries of zeros, and how large each is inflated.
    static let zeroEntries = 4
    static let zeroEntryBytes = 32 << 20

    /// Writes the hostile zip: the export and `zeroEntries` entries of zeros, the zeros
    /// first or last. Returns its path.
    static func hostileZip(in directory: TemporaryDirectory, zerosFirst: Bool) throws -> String {
        let path = directory.path(zerosFirst ? "zeros-first.zip" : "export-first.zip")
        let export: (name: String, body: (ByteSink) throws -> Void) = (
            "apple_health_export/export.xml", { try $0.write(healthXML(sleepRecord())) }
        )
        let zeros = (0..<zeroEntries).map { index -> (name: String, body: (ByteSink) throws -> Void) in
            (
                "apple_health_export/zeros-\(index).bin",
                { sink in
                    let block = [UInt8](repeating: 0, count: 1 << 20)
                    for _ in 0..<(zeroEntryBytes >> 20) { try sink.write(bytes: block) }
                }
            )
        }
        try ExportZipWriter.write(entries: zerosFirst ? zeros + [export] : [export] + zeros, toPath: path)
        return path
    }

    /// Reads `bytes` as they arrive on a pipe; drains what the reader left so the writer ends.
    static func readFromPipe(_ bytes: Data, options: ReaderOptions) -> Result<ReadOutcome, ImportError> {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(bytes)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        defer { _ = pipe.fileHandleForReading.readDataToEndOfFile() }
        do {
            return .success(
                try readAll(.fileDescriptor(pipe.fileHandleForReading.fileDescriptor, name: "-"), options: options))
        } catch let error as ImportError {
            return .failure(error)
        } catch {
            return .failure(.io(file: "-", reason: "\(error)"))
        }
    }

    @Test(
        "on disk, entries of zeros with data descriptors are skipped without inflating, even under a 1 MiB cap; the digest still covers every byte",
        arguments: [true, false])
    func fileSkipsWithoutInflating(zerosFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.hostileZip(in: directory, zerosFirst: zerosFirst)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let outcome = try readAll(.path(path), options: ReaderOptions(maximumInflatedBytes: 1 << 20))
        #expect(outcome.samples.count == 1)
        #expect(outcome.report.entryName == "apple_health_export/export.xml")
        // The export and, at most, the first 16 KiB of each entry of zeros looked at to
        // recognise the export: never the 128 MiB of zeros.
        let bound = Int64(healthXML(sleepRecord()).utf8.count + Self.zeroEntries * ZipExportExtractor.recognitionBytes)
        #expect(outcome.report.inflatedBytes > 0)
        #expect(outcome.report.inflatedBytes <= bound)
        #expect(outcome.report.inputBytes == Int64(bytes.count))
        #expect(outcome.report.sha256 == SHA256Digest.hex(of: bytes))
    }

    /// A stream cannot seek to the central directory, so the reader inflates what it
    /// skips; every byte counts, and the zip is refused with a plain reason. Before this,
    /// all of it was inflated and the zip accepted.
    @Test(
        "on a stream, skipped entries of zeros count: refused past the ratio or the cap",
        arguments: [
            (true, ReaderOptions(), "the zip inflates more than 1000:1"),
            (false, ReaderOptions(), "the zip inflates more than 1000:1"),
            (
                true, ReaderOptions(maximumInflatedBytes: 8 << 20, maximumCompressionRatio: 1e9),
                "the zip's entries inflate to more than 8388608 bytes, the configured cap for one input"
            ),
        ])
    func streamCountsSkippedEntries(zerosFirst: Bool, options: ReaderOptions, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.hostileZip(in: directory, zerosFirst: zerosFirst)
        let result = Self.readFromPipe(try Data(contentsOf: URL(fileURLWithPath: path)), options: options)
        guard case .failure(.badFile(let file, nil, let refusal)) = result else {
            Issue.record("accepted or failed otherwise: \(result)")
            return
        }
        #expect(file == "-")
        #expect(refusal.hasPrefix(reason), "\(refusal)")
    }

    /// Without its central directory (the last KiB cut off) a file is read with the
    /// streamable reader, as a stream is, and counts its skipped entries the same way.
    @Test(
        "on disk without a central directory, skipped entries of zeros count as on a stream", arguments: [true, false])
    func truncatedFileCountsSkippedEntries(zerosFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.hostileZip(in: directory, zerosFirst: zerosFirst)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = try directory.write("truncated.zip", bytes: [UInt8](bytes.dropLast(1024)))
        guard case .badFile(truncated, nil, let reason) = badFileReason(.path(truncated)) else {
            Issue.record("not refused as a bad file")
            return
        }
        #expect(reason.hasPrefix("the zip inflates more than 1000:1"), "\(reason)")
    }

    @Test("a zip without bounds trouble on a stream reads as on disk, its inflated bytes counted")
    func streamOfAnOrdinaryZip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("export.zip")
        try ExportZipWriter.write(entries: [("export.xml", { try $0.write(healthXML(sleepRecord())) })], toPath: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let piped = try Self.readFromPipe(bytes, options: .standard).get()
        let onDisk = try readAll(.path(path))
        #expect(piped.samples == onDisk.samples)
        #expect(piped.report.inputBytes == onDisk.report.inputBytes)
        #expect(piped.report.sha256 == onDisk.report.sha256)
        #expect(piped.report.inflatedBytes == onDisk.report.inflatedBytes)
        #expect(piped.report.inflatedBytes == Int64(healthXML(sleepRecord()).utf8.count))
    }
}
