/// Values a person typed (a handle, a file name, an option), made safe to echo inside a
/// one-line message: a newline in a file name must not split an error across lines, and
/// an escape sequence in a handle must not reach a terminal.
public enum MessageText {
    /// `text` with every control character (C0, DEL and C1, `Cc`) and Unicode's line and
    /// paragraph separators written as an escape: `\n`, `\r`, `\t`, else `\u{1B}`-style
    /// hexadecimal. Everything else, backslashes included, is kept as it is.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// `'text'`, escaped (``escaped(_:)``): how messages quote a value a person typed.
    public static func quoted(_ text: some StringProtocol) -> String { "'" + escaped(text) + "'" }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
