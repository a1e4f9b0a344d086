import SleepReports

/// Text made to be written to a terminal: the program's own layout and styling, with every
/// value in it made harmless.
///
/// Values (source names, file names, zip entry names, diagnostics, handles: anything read
/// from an input or the database) can hold control characters: an OSC 8 link
/// (`ESC ] 8 ;; url ESC \`), a screen clear (`ESC [ 2 J`), a bell, a carriage return
/// that overwrites a line, C1 controls, or bidirectional overrides that reorder what is
/// shown. Each of them is replaced by a visible stand-in (``replacingControlCharacters(in:keepingLayout:)``):
///
/// - C0 controls U+0000–U+001F become the Control Pictures U+2400–U+241F (`ESC` shows as
///   `␛`, a newline inside a value as `␊`, a tab as `␉`);
/// - DEL U+007F becomes `␡` (U+2421);
/// - C1 controls U+0080–U+009F and the bidirectional controls (U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069) become `�` (U+FFFD).
///
/// A `TerminalText` is built from string literals (the program's own text, kept as
/// written), interpolations (values, replaced as above, newlines and tabs included), other
/// `TerminalText`s (kept) and ``AdminStyle`` colours. ``Console`` writes it as it is; a
/// plain `String` given to ``Console`` is treated as a whole as a value, keeping only its
/// newlines and tabs as layout.
public struct TerminalText: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The characters to write, styling included.
    public private(set) var rendered: String
    /// The characters a person sees: ``rendered`` without the styling sequences.
    public private(set) var visible: String

    /// A value: every control character replaced, newlines and tabs included.
    public init(_ value: String) {
        rendered = Self.replacingControlCharacters(in: value, keepingLayout: false)
        visible = rendered
    }

    /// The program's own text, kept as written.
    public init(stringLiteral value: String) {
        rendered = value
        visible = value
    }

    /// Literal parts kept, interpolated values replaced.
    public init(stringInterpolation: StringInterpolation) {
        rendered = stringInterpolation.rendered
        visible = stringInterpolation.visible
    }

    /// Text wrapped in an SGR (Select Graphic Rendition) sequence, `ESC [ code m`, and a
    /// reset; the visible text is unchanged.
    package init(styling text: TerminalText, code: String) {
        rendered = "\u{1B}[\(code)m" + text.rendered + "\u{1B}[0m"
        visible = text.visible
    }

    /// The empty text.
    public static let empty: TerminalText = ""

    /// ``rendered``.
    public var description: String { rendered }

    /// How many columns it takes (characters, styling left out).
    package var width: Int { visible.count }

    /// Both texts one after the other.
    public static func + (left: TerminalText, right: TerminalText) -> TerminalText {
        var result = left
        result += right
        return result
    }

    /// Appends `right`.
    public static func += (left: inout TerminalText, right: TerminalText) {
        left.rendered += right.rendered
        left.visible += right.visible
    }

    /// The text without trailing spaces (styling at the end is kept).
    package func trimmingTrailingSpaces() -> TerminalText {
        var text = self
        while text.rendered.hasSuffix(" "), text.visible.hasSuffix(" ") {
            text.rendered.removeLast()
            text.visible.removeLast()
        }
        return text
    }

    /// The text split at its newlines (styling must not span lines).
    package func lines() -> [TerminalText] {
        let rendered = self.rendered.split(separator: "\n", omittingEmptySubsequences: false)
        let visible = self.visible.split(separator: "\n", omittingEmptySubsequences: false)
        guard rendered.count == visible.count else { return [self] }
        return zip(rendered, visible).map { TerminalText(rendered: String($0), visible: String($1)) }
    }

    private init(rendered: String, visible: String) {
        self.rendered = rendered
        self.visible = visible
    }

    /// Builds a ``TerminalText`` from a string literal with interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        var rendered = ""
        var visible = ""

        /// Reserves room.
        public init(literalCapacity: Int, interpolationCount: Int) {
            rendered.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// The program's own text, kept.
        public mutating func appendLiteral(_ literal: String) {
            rendered += literal
            visible += literal
        }

        /// Text already made for the terminal, kept.
        public mutating func appendInterpolation(_ text: TerminalText) {
            rendered += text.rendered
            visible += text.visible
        }

        /// A value, its control characters replaced.
        public mutating func appendInterpolation(_ value: String) {
            appendInterpolation(TerminalText(value))
        }

        /// A value, its description's control characters replaced.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            appendInterpolation(TerminalText(value.description))
        }
    }

    // MARK: The rule

    /// `text` with every control character replaced by its visible stand-in (see the
    /// type's documentation); with `keepingLayout`, newlines, tabs and a carriage return
    /// right before a newline stay (the layout of text that is not a single value). The
    /// rule is SleepReports' ``ControlCharacters``, shared with CSV and the web pages.
    public static func replacingControlCharacters(in text: String, keepingLayout: Bool) -> String {
        ControlCharacters.replacing(in: text, keepingLayout: keepingLayout)
    }

    /// Whether a terminal could act on the scalar instead of showing it.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool { ControlCharacters.isControl(scalar) }
}
