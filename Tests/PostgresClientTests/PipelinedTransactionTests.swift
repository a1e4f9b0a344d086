import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Pipelined transactions against a real PostgreSQL")
struct PipelinedTransactionTests {
    static func connection() throws -> Connection {
        let connection = try Connection(conninfo: try TestDatabase.fresh().conninfo)
        try connection.execute("CREATE TABLE nights (n int PRIMARY KEY)")
        return connection
    }

    @Test("statements run in order in one transaction: each sees the setting and rows of the ones before")
    func inOrder() throws {
        let connection = try Self.connection()
        for round in 1...3 {  // the first round prepares the statements, the next ones reuse them
            let results = try connection.pipelinedTransaction([
                PipelinedStatement("SELECT set_config('test.user', $1, true)", [.int(round)], name: "setting"),
                PipelinedStatement("INSERT INTO nights VALUES ($1)", [.int(round)], name: "insert"),
                PipelinedStatement(
                    "SELECT current_setting('test.user'), count(*) FROM nights", name: "read"),
                PipelinedStatement("SELECT n FROM nights WHERE n > $1 ORDER BY n", [.int(round)], name: "empty"),
            ])
            #expect(results.count == 4)
            #expect(try results[0].single().string(0) == String(round))
            #expect(results[1].affectedRows == 1)
            #expect(try results[2].single().string(0) == String(round))
            #expect(try results[2].single().int(1) == round)
            #expect(results[3].rows.isEmpty)
            #expect(!connection.isInTransaction)
        }
        // Committed; the setting ended with each transaction.
        #expect(try connection.execute("SELECT count(*) FROM nights").single().int(0) == 3)
        #expect(try connection.execute("SELECT current_setting('test.user', true)").single().string(0) == "")
        #expect(try connection.pipelinedTransaction([]).isEmpty)
    }

    @Test("a failing statement throws its error, skips the rest and rolls back; the connection is usable after")
    func failure() throws {
        let connection = try Self.connection()
        try connection.execute("INSERT INTO nights VALUES (1)")
        let error = #expect(throws: PostgresError.self) {
            try connection.pipelinedTransaction([
                PipelinedStatement("INSERT INTO nights VALUES ($1)", [.int(2)], name: "nights.two"),
                PipelinedStatement("INSERT INTO nights VALUES ($1)", [.int(1)], name: "nights.duplicate"),
                PipelinedStatement("INSERT INTO nights VALUES ($1)", [.int(3)], name: "nights.three"),
            ])
        }
        #expect(error?.kind == .alreadyExists)
        #expect(error?.sqlState == "23505")
        #expect(error?.statement == "nights.duplicate")
        #expect(!connection.isInTransaction)
        let syntax = #expect(throws: PostgresError.self) {
            try connection.pipelinedTransaction([PipelinedStatement("SELEC 1", name: "typo")])
        }
        #expect(syntax?.sqlState == "42601")
        #expect(syntax?.statement == "typo")
        let values = try connection.pipelinedTransaction([
            PipelinedStatement("SELECT n FROM nights ORDER BY n", name: "all")
        ])[0].rows.map { try $0.int(0) }
        #expect(values == [1])
    }

    @Test("read-only refuses writes (25006); a NUL parameter is refused; not inside another transaction")
    func refusals() throws {
        let connection = try Self.connection()
        let write = #expect(throws: PostgresError.self) {
            try connection.pipelinedTransaction(
                [PipelinedStatement("INSERT INTO nights VALUES (1)", name: "nights.insert")], readOnly: true)
        }
        #expect(write?.sqlState == "25006")
        #expect(write?.statement == "nights.insert")
        let nul = #expect(throws: PostgresError.self) {
            try connection.pipelinedTransaction([
                PipelinedStatement("INSERT INTO nights VALUES (7)", name: "nights.seven"),
                PipelinedStatement("SELECT $1::text", [.text("a\u{0}b")], name: "nul"),
            ])
        }
        #expect(nul?.kind == .invalidValue)
        #expect(!connection.isInTransaction)
        try connection.transaction { connection in
            let nested = #expect(throws: PostgresError.self) {
                try connection.pipelinedTransaction([PipelinedStatement("SELECT 1", name: "one")])
            }
            #expect(nested?.kind == .invalidUse)
        }
        #expect(try connection.execute("SELECT count(*) FROM nights").single().int(0) == 0)
    }

    @Test("an unprepared statement (a SET LOCAL with its value written in) runs in order and keeps nothing")
    func unprepared() throws {
        let connection = try Self.connection()
        for round in 1...3 {
            let results = try connection.pipelinedTransaction(
                [
                    PipelinedStatement("SET LOCAL test.person = '\(round)'", name: "setting", isPrepared: false),
                    PipelinedStatement("SELECT current_setting('test.person')", name: "read"),
                ], readOnly: true)
            #expect(results.count == 2)
            #expect(try results[1].single().string(0) == String(round))
        }
        // BEGIN READ ONLY, the read and COMMIT, but none of the three settings.
        #expect(try connection.execute("SELECT count(*) FROM pg_prepared_statements").single().int(0) == 3)
        #expect(try connection.execute("SELECT current_setting('test.person', true)").single().string(0) == "")
        let typo = #expect(throws: PostgresError.self) {
            try connection.pipelinedTransaction([
                PipelinedStatement("SET LOCAL test.person =", name: "typo", isPrepared: false),
                PipelinedStatement("SELECT 1", name: "one"),
            ])
        }
        #expect(typo?.sqlState == "42601")
        #expect(typo?.statement == "typo")
        #expect(!connection.isInTransaction)
    }
}
