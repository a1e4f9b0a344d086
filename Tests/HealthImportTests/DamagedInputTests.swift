import Foundation
import SleepFixtures
import Testing

@testable import HealthImport

/// Randomly damaged exports (flipped bytes, cuts, inserted markup) never crash the
/// reader: each read ends in a report or an ImportError.
struct DamagedInputTests {
    @Test(arguments: SeedBatch.batches(of: 60, in: 6))
    func damagedExportEndsInAReportOrAnImportError(batch: SeedBatch) throws {
        for seed in batch.seeds {
            do { try damagedExportEndsInAReportOrAnImportError(seed: seed) } catch {
                Issue.record(error, "seed \(seed)")
            }
        }
    }

    func damagedExportEndsInAReportOrAnImportError(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var bytes = Array(AdversarialExport(seed: seed).withDoctype.utf8)
        let insertions = [
            "<", ">", "\"", "'", "<!--", "]]>", "</Record>", "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\"",
            "\u{0B}", "&", "\u{FF}",
        ]
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1:
                bytes.insert(
                    contentsOf: Array(insertions[Int.random(in: 0..<insertions.count, using: &random)].utf8), at: at)
            default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &random)))
            }
        }
        if seed % 5 == 0 { bytes.removeLast(Int.random(in: 0..<bytes.count / 2, using: &random)) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("export.xml", bytes: bytes)
        do {
            let outcome = try readAll(.path(path), options: ReaderOptions(chunkBytes: 64))
            #expect(outcome.report.accepted + outcome.report.rejected == outcome.report.sleepRecords, "seed \(seed)")
        } catch is ImportError {
            // A bad file: fine.
        }
    }
}
