/// One finding about one record that was not imported (or imported with a change),
/// with the place a person needs to find it: the file (zip entry name or path) and the
/// 1-based line where the record starts.
public struct ImportDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file the record is in: the zip entry name (`apple_health_export/export.xml`),
    /// or the path of a plain XML or CSV input (`-` for standard input).
    public var file: String
    /// The 1-based line where the record starts.
    public var line: Int
    /// Why the record was rejected, e.g. `unknown sleep value "HKCategoryValueSleepAnalysisNap"`:
    /// at most ``maximumReasonBytes``, quoting at most ``maximumQuotedValueBytes`` of a value.
    public var reason: String

    /// Creates a diagnostic.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, the form compilers use, so editors can jump to it.
    public var description: String { "\(file):\(line): \(reason)" }

    /// The most bytes of a value a reason quotes: a longer value shows as its prefix, `…`
    /// and its size, e.g. `unknown sleep value "NapNap…" (196608 bytes)`. Control
    /// characters show as `\u{1B}`.
    public static let maximumQuotedValueBytes = 64
    /// The longest ``reason`` kept, in bytes of UTF-8 (a longer one ends in `…`).
    public static let maximumReasonBytes = 512
    /// The longest ``file`` kept, in bytes of UTF-8 (a longer name ends in `…`).
    public static let maximumFileBytes = 256
}
