/// Where a sample came from: the file (zip entry name or input path) and the 1-based
/// line where its record or CSV row starts.
public struct RecordLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The zip entry name, or the input path (`-` for standard input).
    public var file: String
    /// The 1-based line where the record or row starts.
    public var line: Int

    /// Creates a location.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }
}
