import SleepReports

/// HTML markup with every value in it escaped: the one place the web pages make values
/// safe to show.
///
/// An `HTML` is built from string literals (the program's own markup, kept as written),
/// interpolations of `String` or any other description (values: escaped), interpolations
/// of other `HTML` (kept), and ``trusted(_:)`` for markup made elsewhere by code that
/// escapes its own values (the charts of SleepReports). So a handle, a source name, a time
/// zone, an import's file name or diagnostic can only ever be text, in element content and
/// in double-quoted attribute values alike:
///
/// ```swift
/// let cell: HTML = "<td class=\"source\">\(night.source)</td>"
/// ```
///
/// Escaping (``escape(_:)``) replaces `&`, `<`, `>`, `"` and `'` by character references,
/// and control and bidirectional characters by the visible stand-ins of SleepReports'
/// ``ControlCharacters`` (newlines and tabs stay), so a value cannot close an element, end
/// an attribute, or reorder the text around it.
public struct HTML: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The markup.
    public private(set) var rendered: String

    /// A value as text: escaped.
    public init(_ value: String) {
        rendered = Self.escape(value)
    }

    /// The program's own markup, kept as written.
    public init(stringLiteral value: String) {
        rendered = value
    }

    /// Literal parts kept, interpolated values escaped, interpolated markup kept.
    public init(stringInterpolation: StringInterpolation) {
        rendered = stringInterpolation.rendered
    }

    private init(markup: String) {
        rendered = markup
    }

    /// Markup made by code that escapes its own values (the SVG charts of SleepReports), kept
    /// as it is. Never for a value.
    public static func trusted(_ markup: String) -> HTML { HTML(markup: markup) }

    /// No markup.
    public static let empty: HTML = ""

    /// ``rendered``.
    public var description: String { rendered }

    /// Both one after the other.
    public static func + (left: HTML, right: HTML) -> HTML { HTML(markup: left.rendered + right.rendered) }

    /// Appends `right`.
    public static func += (left: inout HTML, right: HTML) { left.rendered += right.rendered }

    /// `value` made safe as element content and as a double- or single-quoted attribute
    /// value.
    public static func escape(_ value: String) -> String {
        let text = ControlCharacters.replacing(in: value, keepingLayout: true)
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Builds an ``HTML`` from a string literal with interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var rendered = ""

        /// Reserves room.
        public init(literalCapacity: Int, interpolationCount: Int) {
            rendered.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        /// The program's own markup, kept.
        public mutating func appendLiteral(_ literal: String) { rendered += literal }

        /// Markup, kept.
        public mutating func appendInterpolation(_ html: HTML) { rendered += html.rendered }

        /// Pieces of markup one after the other.
        public mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { rendered += part.rendered }
        }

        /// A value, escaped.
        public mutating func appendInterpolation(_ value: String) { rendered += HTML.escape(value) }

        /// A value's description, escaped.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            rendered += HTML.escape(value.description)
        }
    }
}

extension Sequence where Element == HTML {
    /// The pieces one after the other, with `separator` between them.
    public func joined(separator: HTML = .empty) -> HTML {
        var result = HTML.empty
        var isFirst = true
        for part in self {
            if !isFirst { result += separator }
            result += part
            isFirst = false
        }
        return result
    }
}
