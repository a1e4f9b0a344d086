import LedgerTestSupport
import PostgresClient
import Testing

/// A database error's description names the statement, SQLSTATE, table, column and
/// constraint, and never a value from a row or a parameter; the debug description keeps
/// everything.
@Suite("Log-safe database errors")
struct LogSafetyTests {
    /// Recognisable, and in no message PostgreSQL writes by itself.
    static let secret = "SECRET-7f3a-handle"

    /// One way to make the server (or the client) refuse a recognisable value.
    struct Provocation: Sendable, CustomTestStringConvertible {
        var name: String
        var sqlState: String?
        var table: String?
        var column: String?
        var constraint: String?
        /// Whether the full detail (the debug description) holds the value.
        var debugHoldsValue: Bool
        var provoke: @Sendable (Connection) throws -> Void
        var testDescription: String { name }
    }

    static let provocations: [Provocation] = [
        Provocation(
            name: "unique violation (DETAIL: Key (...)=(value) already exists)", sqlState: "23505",
            table: "people", constraint: "people_handle_key", debugHoldsValue: true
        ) { connection in
            try connection.execute("INSERT INTO people (handle, hours) VALUES ($1, 8)", [.text(secret)])
            try connection.execute("INSERT INTO people (handle, hours) VALUES ($1, 8)", [.text(secret)])
        },
        Provocation(
            name: "check violation (DETAIL: Failing row contains (...))", sqlState: "23514", table: "people",
            constraint: "people_hours_check", debugHoldsValue: true
        ) { connection in
            try connection.execute("INSERT INTO people (handle, hours) VALUES ($1, 30)", [.text(secret)])
        },
        Provocation(
            name: "not-null violation of a row holding the value", sqlState: "23502", table: "people",
            column: "hours", debugHoldsValue: true
        ) { connection in
            try connection.execute("INSERT INTO people (handle, hours) VALUES ($1, NULL)", [.text(secret)])
        },
        Provocation(
            name: "invalid input syntax quoting the parameter", sqlState: "22P02", debugHoldsValue: true
        ) { connection in
            try connection.execute("SELECT $1::integer", [.text(secret)])
        },
        Provocation(
            name: "a bad value in a COPY", sqlState: "22P02", debugHoldsValue: true
        ) { connection in
            try connection.copyIn("COPY people (handle, hours) FROM STDIN") { writer in
                try writer.writeRow(["anna", secret] as [String?])
            }
        },
        Provocation(
            name: "a value the client cannot read as the asked type", debugHoldsValue: true
        ) { connection in
            _ = try connection.execute("SELECT $1::text AS word", [.text(secret)]).single().int64("word")
        },
    ]

    @Test("the value is in no description, only in the debug description", arguments: provocations)
    func valueNeverPrinted(_ provocation: Provocation) throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        try connection.execute(
            """
            CREATE TABLE people (
                handle text CONSTRAINT people_handle_key UNIQUE,
                hours integer NOT NULL CONSTRAINT people_hours_check CHECK (hours < 24)
            )
            """)
        let error = try #require(throws: PostgresError.self) { try provocation.provoke(connection) }
        for printed in [error.description, "\(error)", String(describing: error), error.logSafeMessage] {
            #expect(!printed.contains(Self.secret), "\(printed)")
        }
        #expect(error.debugDescription.contains(Self.secret) == provocation.debugHoldsValue)
        #expect(error.sqlState == provocation.sqlState)
        if let sqlState = provocation.sqlState { #expect(error.description.contains("[SQLSTATE \(sqlState)]")) }
        if let table = provocation.table { #expect(error.description.contains("(table \(table))")) }
        if let column = provocation.column { #expect(error.description.contains("(column \(column))")) }
        if let constraint = provocation.constraint {
            #expect(error.constraint == constraint)
            #expect(error.description.contains("(constraint \(constraint))"))
        }
    }

    @Test(
        "quoted parts are redacted only in classes that quote data",
        arguments: [
            ("22P02", #"invalid input syntax for type integer: "abc""#, #"invalid input syntax for type integer: "…""#),
            ("P0001", #"bad "x" and "y""#, #"bad "…" and "…""#),
            ("XX000", #"unterminated "quote"#, #"unterminated "…""#),
            (
                "23505", #"duplicate key value violates unique constraint "k""#,
                #"duplicate key value violates unique constraint "k""#
            ),
            ("42P01", #"relation "missing" does not exist"#, #"relation "missing" does not exist"#),
        ])
    func redaction(sqlState: String, message: String, expected: String) {
        #expect(PostgresError(.queryFailed, message, sqlState: sqlState).logSafeMessage == expected)
        // Messages of the client itself (no SQLSTATE) are written without values.
        #expect(PostgresError(.invalidUse, message).logSafeMessage == message)
    }
}
