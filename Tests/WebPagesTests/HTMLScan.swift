import Foundation

/// A small reader of the markup the pages write, for the checks that scan every page: the
/// start and end tags with their attributes, the text between them, and whether elements
/// nest properly. Written for this project's own output (double-quoted attributes, no
/// comments); anything it cannot read is reported as a problem rather than skipped.
struct HTMLScan {
    /// One tag.
    struct Tag {
        /// The element's name, lowercased.
        var name: String
        /// Its attributes, names lowercased, values unescaped.
        var attributes: [String: String]
        /// Whether it is an end tag (`</p>`).
        var isEnd: Bool
        /// Whether it closes itself (`<rect/>`).
        var isSelfClosing: Bool
        /// The text that follows it up to the next tag.
        var textAfter: String
    }

    /// Elements without an end tag.
    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]

    var tags: [Tag] = []
    var problems: [String] = []
    /// The text before the first tag (the doctype is read as a tag).
    var leadingText = ""

    init(_ html: String) {
        var rest = Substring(html)
        if let first = rest.firstIndex(of: "<") {
            leadingText = String(rest[..<first])
            rest = rest[first...]
        }
        while let open = rest.firstIndex(of: "<") {
            guard let close = Self.tagEnd(in: rest[open...]) else {
                problems.append("unterminated tag at \(String(rest[open...].prefix(40)))")
                break
            }
            let inside = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            let textEnd = rest.firstIndex(of: "<") ?? rest.endIndex
            let text = String(rest[..<textEnd])
            if inside.hasPrefix("!") {
                if !inside.lowercased().hasPrefix("!doctype html") { problems.append("markup declaration <\(inside)>") }
                continue
            }
            guard var tag = Self.parse(inside) else {
                problems.append("unreadable tag <\(inside.prefix(60))>")
                continue
            }
            tag.textAfter = text
            tags.append(tag)
        }
    }

    /// The index of the `>` ending the tag starting at `text`'s start, skipping quoted values.
    static func tagEnd(in text: Substring) -> Substring.Index? {
        var quote: Character?
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" {
                quote = character
            } else if character == ">" {
                return index
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A tag's name and attributes from what is between `<` and `>`.
    static func parse(_ inside: Substring) -> Tag? {
        var body = inside
        let isEnd = body.first == "/"
        if isEnd { body = body.dropFirst() }
        let isSelfClosing = body.last == "/"
        if isSelfClosing { body = body.dropLast() }
        let name = body.prefix { !$0.isWhitespace }.lowercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        var rest = body.dropFirst(name.count)
        var attributes: [String: String] = [:]
        while true {
            rest = rest.drop { $0.isWhitespace }
            guard !rest.isEmpty else { break }
            let attribute = rest.prefix { !$0.isWhitespace && $0 != "=" }.lowercased()
            guard !attribute.isEmpty, !attribute.contains("\""), !attribute.contains("'") else { return nil }
            rest = rest.dropFirst(attribute.count)
            if rest.first == "=" {
                rest = rest.dropFirst()
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                guard let end = rest.firstIndex(of: "\"") else { return nil }
                attributes[attribute] = unescape(String(rest[..<end]))
                rest = rest[rest.index(after: end)...]
            } else {
                attributes[attribute] = ""
            }
        }
        return Tag(name: name, attributes: attributes, isEnd: isEnd, isSelfClosing: isSelfClosing, textAfter: "")
    }

    /// Text with the character references the pages write replaced.
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Start tags named `name`.
    func elements(_ name: String) -> [Tag] { tags.filter { $0.name == name && !$0.isEnd } }

    /// Start tags whose class list holds `name`.
    func elements(withClass name: String) -> [Tag] {
        tags.filter { !$0.isEnd && ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(name)) }
    }

    /// Where elements do not nest: an end tag without its start, or a start never ended.
    var nestingProblems: [String] {
        var open: [String] = []
        var found: [String] = []
        for tag in tags where !Self.voidElements.contains(tag.name) && !tag.isSelfClosing {
            if tag.isEnd {
                if open.last == tag.name {
                    open.removeLast()
                } else {
                    found.append("</\(tag.name)> closes <\(open.last ?? "nothing")>")
                    return found
                }
            } else {
                open.append(tag.name)
            }
        }
        if !open.isEmpty { found.append("never closed: \(open)") }
        return found
    }

    /// The text content of the whole document, tags left out, references unescaped.
    var text: String { Self.unescape(leadingText + tags.map(\.textAfter).joined()) }
}
