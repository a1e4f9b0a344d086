/// The one error type of the storage layer: what failed, PostgreSQL's SQLSTATE when the
/// server reported one, and enough context for an operator to act.
///
/// ``description`` is safe to log: it never contains connection passwords or parameter
/// values, only the statement's label.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of operation failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The server could not be reached or refused the connection.
        case connectionFailed
        /// A statement failed on the server or the connection broke during it.
        case queryFailed
        /// A `COPY ... FROM STDIN` or `COPY ... TO STDOUT` failed.
        case copyFailed
        /// A migration file could not be read or applied.
        case migrationFailed
        /// The database holds a schema version this tool does not know: it is older than
        /// the database, so it must not touch it.
        case schemaTooNew
        /// Migrations are pending and the caller asked for a current schema.
        case schemaPending
        /// The embedded cluster could not be created, started or stopped.
        case clusterFailed
        /// A value read from a result did not have the expected form, or a column was missing.
        case decodingFailed
        /// A value cannot be sent to PostgreSQL (for example a string containing NUL).
        case invalidValue
        /// A row with the same unique key already exists (SQLSTATE 23505).
        case alreadyExists
        /// The named row does not exist.
        case notFound
        /// A check, foreign-key or not-null constraint rejected the change (SQLSTATE 23xxx).
        case constraintViolated
        /// The API was used in a way it does not support (for example a closed connection).
        case invalidUse
    }

    /// What kind of operation failed.
    public var kind: Kind
    /// The five-character SQLSTATE code reported by the server, when there was one.
    public var sqlState: String?
    /// The primary, human-readable message.
    public var message: String
    /// The server's or tool's detail line, when there is one.
    public var detail: String?
    /// A label of the statement that failed (for example `users.add`), never SQL with values.
    public var statement: String?
    /// The name of the violated constraint, when the server reported one.
    public var constraint: String?

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, sqlState: String? = nil, detail: String? = nil,
        statement: String? = nil, constraint: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.statement = statement
        self.constraint = constraint
    }

    /// `kind: message [SQLSTATE xxxxx] (statement label) — detail`, on one line.
    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        if let statement { text += " (statement \(statement))" }
        if let constraint { text += " (constraint \(constraint))" }
        if let detail, !detail.isEmpty { text += " - \(detail)" }
        return text
    }

    /// Whether the server reported a unique-key violation (SQLSTATE 23505).
    public var isUniqueViolation: Bool { sqlState == "23505" }
}
