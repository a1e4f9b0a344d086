/// Text from an input made safe to quote in a diagnostic, a warning or an error: at most
/// a short prefix of it, with control characters written as `\u{1B}`, so a reason has a
/// bounded length whatever the input holds, prints on one line, and stores in a JSONB
/// column (which refuses `\u0000`).
enum DiagnosticText {
    /// A value quoted in a reason: `"HKCategoryValueSleepAnalysisNap"`, or for a value
    /// longer than ``ImportDiagnostic/maximumQuotedValueBytes`` its prefix and its size,
    /// `"NapNapNap…" (196608 bytes)`.
    static func quoted(_ value: String) -> String {
        let shown = shortened(value, maximumBytes: ImportDiagnostic.maximumQuotedValueBytes)
        guard shown.isCut else { return "\"\(shown.text)\"" }
        return "\"\(shown.text)…\" (\(value.utf8.count) bytes)"
    }

    /// A value written unquoted (such as a date in `endDate ... is not after startDate
    /// ...`): its prefix followed by `…` when it is longer than
    /// ``ImportDiagnostic/maximumQuotedValueBytes``.
    static func unquoted(_ value: String) -> String {
        limited(value, maximumBytes: ImportDiagnostic.maximumQuotedValueBytes)
    }

    /// An element or column name from raw bytes (invalid UTF-8 shown as U+FFFD).
    static func name(_ bytes: UnsafeRawBufferPointer) -> String {
        let shownBytes = UnsafeRawBufferPointer(
            rebasing: bytes[0..<min(bytes.count, 4 * ImportDiagnostic.maximumQuotedValueBytes)])
        let shown = limited(
            String(decoding: shownBytes, as: UTF8.self), maximumBytes: ImportDiagnostic.maximumQuotedValueBytes)
        return shownBytes.count < bytes.count && !shown.hasSuffix("…") ? shown + "…" : shown
    }

    /// `text` with control characters escaped, cut to at most `maximumBytes` bytes of
    /// UTF-8 (on a character boundary) followed by `…` when it was longer.
    static func limited(_ text: String, maximumBytes: Int) -> String {
        let shown = shortened(text, maximumBytes: maximumBytes)
        return shown.isCut ? shown.text + "…" : shown.text
    }

    /// Escapes control characters and keeps at most `maximumBytes` bytes of UTF-8;
    /// stops reading `text` there.
    private static func shortened(_ text: String, maximumBytes: Int) -> (text: String, isCut: Bool) {
        var output = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            let piece: String
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                piece = "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                piece = String(scalar)
            }
            let pieceBytes = piece.utf8.count
            if bytes + pieceBytes > maximumBytes { return (output, true) }
            output += piece
            bytes += pieceBytes
        }
        return (output, false)
    }
}
