/// One statement of ``Connection/pipelinedTransaction(_:readOnly:)``: SQL with `$1, $2,
/// ...` parameters (text format, `nil` is NULL), run as a prepared statement of the
/// session, and the name that labels it in errors.
public struct PipelinedStatement: Sendable {
    /// The SQL text.
    public var sql: String
    /// Its parameters.
    public var parameters: [SQLValue?]
    /// Its label in errors.
    public var name: String

    /// Creates a statement.
    public init(_ sql: String, _ parameters: [SQLValue?] = [], name: String) {
        self.sql = sql
        self.parameters = parameters
        self.name = name
    }
}
