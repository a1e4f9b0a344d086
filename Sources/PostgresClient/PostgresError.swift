/// The one error type of the PostgreSQL client: what failed, PostgreSQL's SQLSTATE when
/// the server reported one, and the objects it names (statement label, table, column,
/// constraint).
///
/// ``description`` is safe to log and to show: it never holds a value from a row or a
/// parameter. The server's DETAIL and HINT lines (`Key (handle)=(anna) already exists`,
/// `Failing row contains (...)`) are left out, and in the messages of SQLSTATE classes
/// that quote data (such as 22, data exceptions: `invalid input syntax for type integer:
/// "abc"`) every double-quoted part is replaced by `"…"`. ``debugDescription`` has all
/// of it, for an operator who asked for it (`SLEEPLEDGER_DEBUG=1`).
public struct PostgresError: Error, CustomStringConvertible, CustomDebugStringConvertible, Sendable, Equatable {
    /// What kind of operation failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The server could not be reached or refused the connection.
        case connectionFailed
        /// A statement failed on the server or the connection broke during it.
        case queryFailed
        /// A `COPY ... FROM STDIN` or `COPY ... TO STDOUT` failed.
        case copyFailed
        /// A value read from a result did not have the expected form, or a column was missing.
        case decodingFailed
        /// A value cannot be sent to PostgreSQL (for example a string containing NUL).
        case invalidValue
        /// A row with the same unique key already exists (SQLSTATE 23505).
        case alreadyExists
        /// A check, foreign-key or not-null constraint rejected the change (SQLSTATE 23xxx).
        case constraintViolated
        /// The API was used in a way it does not support (for example a closed connection).
        case invalidUse
    }

    /// What kind of operation failed.
    public var kind: Kind
    /// The five-character SQLSTATE code reported by the server, when there was one.
    public var sqlState: String?
    /// The primary message as the server or libpq wrote it; it may quote a value (see
    /// ``description`` for the log-safe form).
    public var message: String
    /// The server's DETAIL (and HINT) lines, or the client's own detail; may hold values.
    public var detail: String?
    /// A label of the statement that failed (for example `users.add`), never SQL with values.
    public var statement: String?
    /// The name of the violated constraint, when the server reported one.
    public var constraint: String?
    /// The table the error concerns, when the server reported one.
    public var table: String?
    /// The column the error concerns, when the server reported one.
    public var column: String?

    /// Creates an error. `message` must not quote values unless `sqlState` marks it as a
    /// server message (those are redacted by ``description``); put values in `detail`.
    public init(
        _ kind: Kind, _ message: String, sqlState: String? = nil, detail: String? = nil,
        statement: String? = nil, constraint: String? = nil, table: String? = nil, column: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.statement = statement
        self.constraint = constraint
        self.table = table
        self.column = column
    }

    /// SQLSTATE classes whose primary messages name objects (tables, columns,
    /// constraints, roles, databases) and never quote data: connection (08), feature
    /// not supported (0A), integrity (23: the values are in DETAIL), transaction state
    /// (25), authorization (28), catalog and schema names (3D, 3F), rollback (40), syntax
    /// and access rules (42), resources (53), program limits (54), object state (55),
    /// operator intervention (57), system (58).
    static let namingClasses: Set<Substring> = [
        "08", "0A", "23", "25", "28", "3D", "3F", "40", "42", "53", "54", "55", "57", "58",
    ]

    /// SQLSTATEs that say the server this connection reached is gone or is no longer the
    /// primary: connection exceptions (class 08), `admin_shutdown`, `crash_shutdown` and
    /// `cannot_connect_now` (57P01-57P03: a restart, a crash, a node still starting), and
    /// `read_only_sql_transaction` (25006: a write reached a standby, as after a switchover).
    public static func isServerLost(sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006"].contains(sqlState)
    }

    /// Whether the connection is lost or reached a server that cannot take this work now
    /// (``isServerLost(sqlState:)``, or a connection that could not be made or broke): a
    /// reason to drop the session and connect again, never the request's fault.
    public var isServerLost: Bool { kind == .connectionFailed || Self.isServerLost(sqlState: sqlState) }

    /// The primary message with every double-quoted part replaced by `"…"` when it comes
    /// from the server and its SQLSTATE class may quote data; otherwise as it is.
    public var logSafeMessage: String {
        guard let sqlState, !Self.namingClasses.contains(sqlState.prefix(2)) else { return message }
        var redacted = ""
        var isQuoted = false
        for character in message {
            if character == "\"" {
                redacted += isQuoted ? "\"" : "\"…"
                isQuoted.toggle()
            } else if !isQuoted {
                redacted.append(character)
            }
        }
        return isQuoted ? redacted + "\"" : redacted
    }

    /// `kind: message [SQLSTATE xxxxx] (statement label) (table t) (column c)
    /// (constraint k)`, on one line, without values (see the type's documentation).
    public var description: String { line(message: logSafeMessage) }

    /// Everything known: the unredacted message and the DETAIL and HINT lines. May hold
    /// row and parameter values: for an operator's own terminal, never for a log or a
    /// response.
    public var debugDescription: String {
        guard let detail, !detail.isEmpty else { return line(message: message) }
        return line(message: message) + " - \(detail)"
    }

    /// `kind: message` followed by the SQLSTATE, statement, table, column and constraint
    /// that are known.
    private func line(message: String) -> String {
        var text = "\(kind.rawValue): \(message)"
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        if let statement { text += " (statement \(statement))" }
        if let table { text += " (table \(table))" }
        if let column { text += " (column \(column))" }
        if let constraint { text += " (constraint \(constraint))" }
        return text
    }
}
