/// The one rule for characters that could act instead of being shown: control characters
/// a terminal obeys, and bidirectional controls that reorder what a person reads. Every
/// way out that shows a value (the CLI's terminal text, CSV cells, the web pages) replaces
/// them with a visible stand-in through this rule:
///
/// - C0 controls U+0000–U+001F become the Control Pictures U+2400–U+241F (`ESC` shows as
///   `␛`, a newline inside a value as `␊`, a tab as `␉`);
/// - DEL U+007F becomes `␡` (U+2421);
/// - C1 controls U+0080–U+009F and the bidirectional controls (U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069) become `�` (U+FFFD).
public enum ControlCharacters {
    /// `text` with every control character replaced by its visible stand-in; with
    /// `keepingLayout`, newlines, tabs and a carriage return right before a newline stay
    /// (the layout of text that is not a single value).
    public static func replacing(in text: String, keepingLayout: Bool) -> String {
        guard mayHoldControls(text, keepingLayout: keepingLayout) else { return text }
        let scalars = text.unicodeScalars
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            if !isControl(scalar) {
                result.append(scalar)
            } else if keepingLayout
                && (scalar == "\n" || scalar == "\t"
                    || (scalar == "\r" && next < scalars.endIndex && scalars[next] == "\n"))
            {
                result.append(scalar)
            } else {
                result.append(standIn(for: scalar))
            }
            index = next
        }
        return String(result)
    }

    /// Whether `text` may hold a control character to replace, from its UTF-8 bytes
    /// (`false` means certainly none; `true` is decided scalar by scalar). Most text holds
    /// none, and this is several times faster than walking its scalars.
    public static func mayHoldControls(_ text: String, keepingLayout: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let next = index + 1 < bytes.count ? bytes[index + 1] : 0
                let third = index + 2 < bytes.count ? bytes[index + 2] : 0
                switch byte {
                case 0x0A, 0x09: if !keepingLayout { return true }
                case 0x00...0x1F, 0x7F: return true
                // U+0080–U+009F.
                case 0xC2: if (0x80...0x9F).contains(next) { return true }
                // U+061C.
                case 0xD8: if next == 0x9C { return true }
                // U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
                case 0xE2:
                    if next == 0x80, third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third) { return true }
                    if next == 0x81, (0xA6...0xA9).contains(third) { return true }
                default: break
                }
                index += 1
            }
            return false
        }
    }

    /// Whether a terminal could act on the scalar instead of showing it, or it would
    /// reorder the text around it.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The visible stand-in of a control scalar.
    public static func standIn(for scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F: return Unicode.Scalar(0x2400 + scalar.value) ?? "\u{FFFD}"
        case 0x7F: return "\u{2421}"
        default: return "\u{FFFD}"
        }
    }
}
