import Foundation
import FoundationXML
import SleepCore
import Testing

@testable import HealthImport

/// The pre-filter plus per-record XMLParser must yield exactly what one full XMLParser
/// pass over the DOCTYPE-stripped document yields: same samples in the same order, same
/// rejections, same record counts.
struct PrefilterDifferentialTests {
    /// What the full parse finds.
    struct ReferenceResult: Equatable {
        var samples: [SleepSample] = []
        var rejected = 0
        var recordsSeen = 0
        var sleepRecords = 0
    }

    /// A full XMLParser pass: `Record` elements that are direct children of the root.
    final class ReferenceParser: NSObject, XMLParserDelegate {
        var result = ReferenceResult()
        private var depth = 0
        private var current: SleepRecordFields?
        var isParsed = false

        init(document: String) {
            super.init()
            let parser = XMLParser(data: Data(document.utf8))
            parser.shouldResolveExternalEntities = false
            parser.delegate = self
            isParsed = parser.parse()
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            depth += 1
            if depth == 2 && elementName == "Record" {
                result.recordsSeen += 1
                if attributeDict["type"] == SleepRecordFields.sleepAnalysisType {
                    result.sleepRecords += 1
                    current = SleepRecordFields(
                        type: attributeDict["type"], sourceName: attributeDict["sourceName"],
                        startDate: attributeDict["startDate"], endDate: attributeDict["endDate"],
                        value: attributeDict["value"])
                }
            } else if depth == 3, elementName == "MetadataEntry", current != nil,
                current?.timeZone == nil,
                attributeDict["key"] == "HKTimeZone"
            {
                current?.timeZone = attributeDict["value"]
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            if depth == 2, let record = current {
                current = nil
                switch record.sample() {
                case .success(let sample): result.samples.append(sample)
                case .failure: result.rejected += 1
                }
            }
            depth -= 1
        }
    }

    static let chunkSizes = [3, 17, 256, 4096, 1 << 20]

    @Test(arguments: SeedBatch.batches(of: 300, in: 10))
    func prefilterMatchesFullParse(batch: SeedBatch) throws {
        for seed in batch.seeds {
            do { try prefilterMatchesFullParse(seed: seed) } catch { Issue.record(error, "seed \(seed)") }
        }
    }

    func prefilterMatchesFullParse(seed: UInt64) throws {
        let document = AdversarialExport(seed: seed)
        let reference = ReferenceParser(document: document.withoutDoctype)
        try #require(reference.isParsed, "the generator must produce well-formed XML (seed \(seed))")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("export.xml", document.withDoctype)
        let options = ReaderOptions(chunkBytes: Self.chunkSizes[Int(seed) % Self.chunkSizes.count])
        let outcome = try readAll(.path(path), options: options)
        var actual = ReferenceResult()
        actual.samples = outcome.samples
        actual.rejected = outcome.report.rejected
        actual.recordsSeen = outcome.report.recordsSeen
        actual.sleepRecords = outcome.report.sleepRecords
        #expect(actual == reference.result, "seed \(seed)")
        #expect(outcome.report.diagnostics.count == reference.result.rejected, "seed \(seed)")
    }

    @Test func generatorIsAdversarialEnough() throws {
        // Across the seeds the fixtures hold every trap at least once.
        var combined = ""
        for seed in UInt64(1)...UInt64(40) { combined += AdversarialExport(seed: seed).withoutDoctype }
        for trap in [
            "<Correlation", "<![CDATA[<Record", "<!-- <Record", "<?fake <Record", "&#65;nalysis", "'",
            "\n=\n",
            "sourceName=\"a > b\"", "<RecordX", "HKTimeZone",
        ] {
            #expect(combined.contains(trap), "missing trap \(trap)")
        }
        let reference = ReferenceParser(
            document: combined.isEmpty ? "" : AdversarialExport(seed: 5).withoutDoctype)
        #expect(reference.result.sleepRecords > 5)
    }
}
