/// Where a raw sample came from, as the caller knows it: an export file and line, a CSV
/// row. SleepCore never reads files; readers fill this in so diagnostics can point at
/// the record a person has to look at.
public struct SampleLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file or archive entry, e.g. `apple_health_export/export.xml`.
    public var file: String?
    /// The 1-based line (or CSV row) of the record, when known.
    public var line: Int?

    /// Creates a location; both parts are optional.
    public init(file: String? = nil, line: Int? = nil) {
        self.file = file
        self.line = line
    }

    /// `file:line`, `file`, `line N`, or `unknown location`.
    public var description: String {
        switch (file, line) {
        case (let file?, let line?): return "\(file):\(line)"
        case (let file?, nil): return file
        case (nil, let line?): return "line \(line)"
        case (nil, nil): return "unknown location"
        }
    }
}
