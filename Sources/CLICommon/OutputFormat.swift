/// How a command prints its result: `text` for people (default), `json` and `csv` for
/// machines (docs/cli.md).
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned text for people.
    case text
    /// JSON, one document per run.
    case json
    /// RFC 4180 CSV with a header row, where the result is a table.
    case csv

    /// Parses `--format`, allowing only the formats the command supports.
    public static func parse(_ value: String?, allowed: [OutputFormat] = [.text, .json], usage: String)
        throws(CLIError) -> OutputFormat
    {
        guard let value else { return .text }
        guard let format = OutputFormat(rawValue: value), allowed.contains(format) else {
            let names = allowed.map(\.rawValue).joined(separator: "|")
            throw .usage("--format must be one of \(names), not '\(value)'", help: usage)
        }
        return format
    }
}
