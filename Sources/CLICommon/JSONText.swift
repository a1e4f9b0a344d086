import Foundation

/// JSON output with stable key order, shared by every command's `--format json`.
///
/// The JSON is the exact form of every value: decoding it gives back the original strings,
/// control characters included. It holds no raw control character either, so it is safe on
/// a terminal: `JSONEncoder` escapes U+0000–U+001F (`\u001b`), and DEL, the C1 controls and
/// the bidirectional controls (which JSON does not require escaping) are escaped the same
/// way here (`\u009b`, `\u202e`). Outside strings JSON is ASCII, so escaping them wherever
/// they appear is exact.
package enum JSONText {
    package static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return escapingControls(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// `json` with every control scalar ``TerminalText`` would replace written as `\uXXXX`.
    package static func escapingControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: TerminalText.isControl) else { return json }
        var result = ""
        for scalar in json.unicodeScalars {
            // JSONEncoder has escaped U+0000–U+001F already; a raw newline is layout.
            if TerminalText.isControl(scalar), scalar.value > 0x1F {
                result +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
