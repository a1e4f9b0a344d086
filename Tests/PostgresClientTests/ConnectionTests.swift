import Foundation
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Connection against a real PostgreSQL")
struct ConnectionTests {
    @Test("a socket folder with no server fails with connectionFailed and libpq's reason")
    func connectionToMissingSocketFails() throws {
        let folder = NSTemporaryDirectory() + "/sleepledger-no-server-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = #expect(throws: PostgresError.self) {
            try Connection(conninfo: "host=\(folder) dbname=nothing user=nobody connect_timeout=2")
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.contains(".s.PGSQL.5432") == true)
    }

    @Test("an unknown host name fails with connectionFailed")
    func unknownHostFails() {
        let error = #expect(throws: PostgresError.self) {
            try Connection(conninfo: "host=no-such-host.invalid dbname=x user=x connect_timeout=2")
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.isEmpty == false)
    }

    @Test("a password in the connection string never reaches the error description")
    func passwordNotInError() {
        let error = #expect(throws: PostgresError.self) {
            try Connection(
                conninfo: "postgresql://alice:s3cr3t-pw@no-such-host.invalid:5432/db?connect_timeout=2")
        }
        #expect(error?.description.contains("s3cr3t-pw") == false)
    }

    @Test(
        "hostile and unusual text round-trips unchanged as a parameter",
        arguments: [
            "'; DROP TABLE users; --",
            "O'Brien \"quoted\" \\backslash\\ ;semi;colon",
            "\\x00 not bytes, $1 not a parameter, %s not a format",
            "tab\there\nnewline\r\ncarriage",
            "Schlaf – 睡眠 – сон – 🛌💤",
            "",
        ])
    func parameterRoundTrip(value: String) throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE users (handle text)")
        try connection.execute("INSERT INTO users (handle) VALUES ($1)", [.text(value)])
        let stored = try connection.execute("SELECT handle, $1::text = handle AS same FROM users", [.text(value)])
        #expect(stored.rows.count == 1)
        #expect(try stored.single().string("handle") == value)
        #expect(try stored.single().bool("same") == true)
        // The table survived the value that looks like an injection.
        #expect(try connection.execute("SELECT count(*) FROM users").single().int64(0) == 1)
    }

    @Test("a 1 MB parameter round-trips")
    func longParameter() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let value = String(repeating: "sleep ", count: 200_000)
        let row = try connection.execute("SELECT length($1::text) AS n, $1::text AS v", [.text(value)]).single()
        #expect(try row.int("n") == 1_200_000)
        #expect(try row.string("v") == value)
    }

    @Test("a NUL character in a parameter is refused before it reaches the server")
    func nulRefused() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let error = #expect(throws: PostgresError.self) {
            try connection.execute("SELECT $1::text", [.text("a\u{0}b")], name: "nul.test")
        }
        #expect(error?.kind == .invalidValue)
        #expect(error?.statement == "nul.test")
    }

    @Test("typed readers parse values by name and index and give nil for NULL")
    func typedReading() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let row = try connection.execute(
            """
            SELECT $1::bigint AS big, $2::int AS small, $3::float8 AS ratio, $4::bool AS flag,
                   $5::date AS day, $6::timestamptz AS instant, $7::bytea AS blob, $8::jsonb AS doc,
                   NULL::bigint AS nothing, 'Infinity'::float8 AS forever,
                   '2024-03-10 01:30:00.75-05'::timestamptz AS fractional
            """,
            [
                .int64(-9_223_372_036_854_775_807), .int(42), .double(0.875), .bool(false),
                .date(PostgresDate(year: 2024, month: 2, day: 29)), .timestamp(epochSeconds: 1_700_000_000),
                .bytes(Data([0x00, 0xff, 0x10])), .json(#"{"a": [1, "x"]}"#),
            ]
        ).single()
        #expect(try row.int64("big") == -9_223_372_036_854_775_807)
        #expect(try row.int("small") == 42)
        #expect(try row.int64(1) == 42)
        #expect(try row.double("ratio") == 0.875)
        #expect(try row.bool("flag") == false)
        #expect(try row.date("day") == PostgresDate(year: 2024, month: 2, day: 29))
        // 1 700 000 000 s = 2023-11-14 22:13:20 UTC.
        #expect(try row.string("instant") == "2023-11-14 22:13:20+00")
        #expect(try row.epochSeconds("instant") == 1_700_000_000)
        #expect(try row.bytes("blob") == Data([0x00, 0xff, 0x10]))
        #expect(try row.string("doc") == #"{"a": [1, "x"]}"#)
        #expect(try row.int64("nothing") == nil)
        #expect(try row.isNull("nothing"))
        #expect(try row.string(8) == nil)
        #expect(try row.double("forever") == .infinity)
        // 01:30:00.75 at -05 is 06:30:00.75 UTC on 2024-03-10: 1 710 052 200 s, fraction dropped.
        #expect(try row.epochSeconds("fractional") == 1_710_052_200)
        #expect(throws: PostgresError.self) { try row.int64("no_such_column") }
        #expect(throws: PostgresError.self) { try row.int64("doc") }
        #expect(throws: PostgresError.self) { try row.string(99) }
    }

    @Test("timestamps before 1970 encode and decode")
    func timestampsBeforeEpoch() throws {
        #expect(SQLValue.timestamp(epochSeconds: -1).textRepresentation == "1969-12-31 23:59:59+00")
        #expect(SQLValue.timestamp(epochSeconds: 86_400).textRepresentation == "1970-01-02 00:00:00+00")
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let row = try connection.execute(
            "SELECT $1::timestamptz AS t, extract(epoch FROM $1::timestamptz)::bigint AS e",
            [.timestamp(epochSeconds: -86_401)]
        ).single()
        #expect(try row.int64("e") == -86_401)
        #expect(try row.epochSeconds("t") == -86_401)
    }

    @Test("a thrown error inside a transaction rolls everything back")
    func transactionRollsBack() throws {
        struct Abort: Error {}
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE nights (n int)")
        #expect(throws: Abort.self) {
            try connection.transaction { connection in
                try connection.execute("INSERT INTO nights VALUES (1)")
                throw Abort()
            }
        }
        #expect(!connection.isInTransaction)
        try connection.transaction { connection in
            try connection.execute("INSERT INTO nights VALUES (2)")
        }
        let values = try connection.execute("SELECT n FROM nights ORDER BY n").rows.map { try $0.int("n") }
        #expect(values == [2])
    }

    @Test("a failed statement whose error was caught still rolls the transaction back")
    func swallowedErrorRollsBack() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE nights (n int PRIMARY KEY)")
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.execute("INSERT INTO nights VALUES (1)")
                _ = try? connection.execute("INSERT INTO nights VALUES (1)")
            }
        }
        #expect(error?.kind == .queryFailed)
        #expect(try connection.execute("SELECT count(*) FROM nights").single().int(0) == 0)
    }

    @Test("a nested transaction is a savepoint: its failure keeps the outer work")
    func nestedTransactionIsSavepoint() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE nights (n int PRIMARY KEY)")
        try connection.transaction { connection in
            try connection.execute("INSERT INTO nights VALUES (1)")
            let error = #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO nights VALUES (2)")
                    try connection.execute("INSERT INTO nights VALUES (1)")
                }
            }
            #expect(error?.kind == .alreadyExists)
            #expect(error?.sqlState == "23505")
            try connection.execute("INSERT INTO nights VALUES (3)")
        }
        let values = try connection.execute("SELECT n FROM nights ORDER BY n").rows.map { try $0.int(0) }
        #expect(values == [1, 3])
    }

    @Test("a read-only transaction refuses writes with SQLSTATE 25006")
    func readOnlyTransaction() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE nights (n int)")
        let error = #expect(throws: PostgresError.self) {
            try connection.readOnlyTransaction { connection in
                try connection.execute("INSERT INTO nights VALUES (1)", name: "nights.insert")
            }
        }
        #expect(error?.sqlState == "25006")
        #expect(error?.statement == "nights.insert")
        let count = try connection.readOnlyTransaction { try $0.execute("SELECT count(*) FROM nights").single().int(0) }
        #expect(count == 0)
    }

    @Test("server errors carry SQLSTATE, statement label, detail and constraint")
    func serverErrorFields() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE goals (target int CONSTRAINT positive_target CHECK (target > 0))")
        let error = #expect(throws: PostgresError.self) {
            try connection.execute("INSERT INTO goals VALUES ($1)", [.int(-5)], name: "goals.insert")
        }
        #expect(error?.kind == .constraintViolated)
        #expect(error?.sqlState == "23514")
        #expect(error?.constraint == "positive_target")
        #expect(error?.statement == "goals.insert")
        let syntax = #expect(throws: PostgresError.self) { try connection.execute("SELEC 1", name: "typo") }
        #expect(syntax?.kind == .queryFailed)
        #expect(syntax?.sqlState == "42601")
        #expect(syntax?.description.contains("[SQLSTATE 42601]") == true)
    }

    @Test("a closed connection refuses work instead of crashing")
    func closedConnection() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        #expect(connection.serverVersion >= 100_000)
        connection.close()
        connection.close()
        #expect(!connection.isOpen)
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        #expect(error?.kind == .invalidUse)
    }

    @Test("quoteIdentifier doubles embedded quotes")
    func quoteIdentifier() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        #expect(try connection.quoteIdentifier("we\"ird name") == "\"we\"\"ird name\"")
    }
}
