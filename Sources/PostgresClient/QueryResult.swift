/// The rows and column names a statement returned, copied out of libpq's `PGresult`
/// (which is freed before this value exists), plus the affected-row count.
public struct QueryResult: Sendable {
    /// Column names in result order.
    public let columns: [String]
    /// The rows in result order.
    public let rows: [Row]
    /// Rows inserted, updated, deleted or copied, from the command tag; 0 when the
    /// command reports none.
    public let affectedRows: Int

    /// Creates a result; ``Connection`` is the normal source of values.
    public init(columns: [String], rows: [[String?]], affectedRows: Int) {
        self.columns = columns
        let index = Row.ColumnIndex(columns)
        self.rows = rows.map { Row(values: $0, columnIndex: index) }
        self.affectedRows = affectedRows
    }

    /// The first row, or `nil` when there are none.
    public var first: Row? { rows.first }

    /// The first row; throws `decodingFailed` naming `statement` when there are none.
    public func single(_ statement: String = "query") throws -> Row {
        guard let row = rows.first else {
            throw PostgresError(.decodingFailed, "expected a row, got none", statement: statement)
        }
        return row
    }
}
