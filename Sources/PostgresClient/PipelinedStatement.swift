/// One statement of ``Connection/pipelinedTransaction(_:readOnly:)``: SQL with `$1, $2,
/// ...` parameters (text format, `nil` is NULL), run as a prepared statement of the
/// session unless ``isPrepared`` is false, and the name that labels it in errors.
public struct PipelinedStatement: Sendable {
    /// The SQL text.
    public var sql: String
    /// Its parameters.
    public var parameters: [SQLValue?]
    /// Its label in errors.
    public var name: String
    /// Whether it runs as a prepared statement of the session (prepared on first use, kept
    /// for the session's life). `false` for a text that changes from call to call, such as
    /// a `SET LOCAL` with its value written in: it is parsed each time as an unnamed
    /// statement (`PQsendQueryParams`) and nothing is kept.
    public var isPrepared: Bool

    /// Creates a statement.
    public init(_ sql: String, _ parameters: [SQLValue?] = [], name: String, isPrepared: Bool = true) {
        self.sql = sql
        self.parameters = parameters
        self.name = name
        self.isPrepared = isPrepared
    }
}
