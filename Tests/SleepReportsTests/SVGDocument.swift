import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An SVG document read back with `XMLParser`: every element with its attributes, its own
/// text and its tooltip, entities decoded. Reading fails the test when the document is not well-formed.
final class SVGDocument: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        /// The text of the element's `title` child: its tooltip.
        var tooltip = ""
        var classes: [Substring] { (attributes["class"] ?? "").split(separator: " ") }
        func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    let source: String

    init(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) {
        self.source = source
        super.init()
        let parser = XMLParser(data: Data(source.utf8))
        parser.delegate = self
        #expect(
            parser.parse(), "not well-formed: \(String(describing: parser.parserError))", sourceLocation: sourceLocation
        )
    }

    var root: Element? { elements.first }

    func elements(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    func elements(withClass name: String) -> [Element] { elements.filter { $0.classes.contains(Substring(name)) } }

    /// The texts of the `text` elements, in order.
    var texts: [String] { elements("text").map(\.text) }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        open.append(elements.count)
        elements.append(Element(name: elementName, attributes: attributes))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        let index = open.removeLast()
        if elementName == "title", let parent = open.last { elements[parent].tooltip = elements[index].text }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }
}
