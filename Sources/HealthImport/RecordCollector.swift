import Foundation
import FoundationXML

/// An `XMLParser` delegate collecting `Record` elements that are direct children of the
/// document root, with their `HKTimeZone` metadata (a direct `MetadataEntry` child).
final class RecordCollector: NSObject, XMLParserDelegate {
    private(set) var records: [SleepRecordFields] = []
    private var depth = 0
    private var current: SleepRecordFields?
    private(set) var failureReason = "malformed XML"

    /// Parses a document; returns whether it parsed without error.
    func parse(_ data: Data) -> Bool {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = self
        let isParsed = parser.parse()
        if !isParsed {
            let code = (parser.parserError as? NSError)?.code ?? -1
            failureReason = "malformed XML in sleep record (XMLParser error \(code))"
        }
        return isParsed && parser.parserError == nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        depth += 1
        if depth == 2 && elementName == "Record" {
            current = SleepRecordFields(
                type: attributeDict["type"], sourceName: attributeDict["sourceName"],
                startDate: attributeDict["startDate"], endDate: attributeDict["endDate"],
                value: attributeDict["value"], timeZone: nil)
        } else if depth == 3, elementName == "MetadataEntry", current != nil, current?.timeZone == nil,
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
            records.append(record)
            current = nil
        }
        depth -= 1
    }
}
