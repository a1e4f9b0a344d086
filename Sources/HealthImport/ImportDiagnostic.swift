/// One finding about one record that was not imported (or imported with a change),
/// with the place a person needs to find it: the file (zip entry name or path) and the
/// 1-based line where the record starts.
public struct ImportDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file the record is in: the zip entry name (`apple_health_export/export.xml`),
    /// or the path of a plain XML or CSV input (`-` for standard input).
    public var file: String
    /// The 1-based line where the record starts.
    public var line: Int
    /// Why the record was rejected, e.g. `end 2024-01-01 00:55:28 +0200 is not after start`.
    public var reason: String

    /// Creates a diagnostic.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, the form compilers use, so editors can jump to it.
    public var description: String { "\(file):\(line): \(reason)" }
}
