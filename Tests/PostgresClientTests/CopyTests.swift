import Foundation
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("COPY in and out")
struct CopyTests {
    @Test(
        "fields are escaped as COPY text format requires",
        arguments: [
            ("plain", "plain"),
            ("tab\there", "tab\\there"),
            ("line\nbreak", "line\\nbreak"),
            ("carriage\rreturn", "carriage\\rreturn"),
            ("back\\slash", "back\\\\slash"),
            ("\\N", "\\\\N"),
            ("", ""),
        ])
    func escaping(field: String, escaped: String) throws {
        #expect(try CopyText.escape(field) == escaped)
        #expect(CopyText.splitRow(Array(escaped.utf8)) == [field])
    }

    @Test("NULL is written as \\N and a NUL character is refused")
    func nullAndNul() throws {
        #expect(try CopyText.escape(nil) == "\\N")
        #expect(CopyText.splitRow(Array("a\t\\N\t\n".utf8)) == ["a", nil, ""])
        #expect(throws: PostgresError.self) { try CopyText.escape("a\u{0}b") }
    }

    @Test("rows with tabs, newlines, backslashes and NULLs survive COPY in, SELECT and COPY out")
    func roundTrip() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE samples (n int, source text, zone text)")
        let rows: [(Int, String, String?)] = [
            (1, "Anna's Apple Watch", "Europe/Berlin"),
            (2, "tab\tsource", nil),
            (3, "multi\nline\r\nsource", "\\N"),
            (4, "C:\\Health\\export", ""),
            (5, "睡眠 🛌", "America/New_York"),
        ]
        let stored = try connection.copyIn("COPY samples (n, source, zone) FROM STDIN") { writer in
            for (n, source, zone) in rows {
                try writer.writeRow([SQLValue.int(n), .text(source), zone.map(SQLValue.text)])
            }
        }
        #expect(stored == 5)
        let selected = try connection.execute("SELECT n, source, zone FROM samples ORDER BY n").rows
        #expect(selected.count == 5)
        for (row, expected) in zip(selected, rows) {
            #expect(try row.int("n") == expected.0)
            #expect(try row.string("source") == expected.1)
            #expect(try row.string("zone") == expected.2)
        }
        var copied: [[String?]] = []
        let count = try connection.copyOut("COPY (SELECT n, source, zone FROM samples ORDER BY n) TO STDOUT") { bytes in
            copied.append(CopyText.splitRow(bytes))
        }
        #expect(count == 5)
        #expect(copied.map { $0.count } == [3, 3, 3, 3, 3])
        #expect(copied[1] == ["2", "tab\tsource", nil])
        #expect(copied[2] == ["3", "multi\nline\r\nsource", "\\N"])
        #expect(copied[3] == ["4", "C:\\Health\\export", ""])
        #expect(copied[4] == ["5", "睡眠 🛌", "America/New_York"])
    }

    @Test("typed values written to COPY arrive as the same values")
    func typedValues() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute(
            """
            CREATE TABLE typed (big bigint, small int, flag bool, day date, instant timestamptz,
                                ratio float8, blob bytea, doc jsonb)
            """)
        try connection.copyIn("COPY typed FROM STDIN") { writer in
            try writer.writeRow([
                SQLValue.int64(-9_223_372_036_854_775_807), .int(0), .bool(true),
                .date(PostgresDate(year: 2024, month: 2, day: 29)), .timestamp(epochSeconds: 1_700_000_000),
                .double(-0.5), .bytes(Data([0x5c, 0x00, 0xff])), .json(#"{"tab": "a\tb"}"#),
            ])
            try writer.writeRow([
                SQLValue.int64(1_234_567_890_123), .int(-42), .bool(false),
                .date(PostgresDate(year: 1969, month: 12, day: 31)), .timestamp(epochSeconds: -1),
                nil, nil, nil,
            ])
        }
        let rows = try connection.execute(
            """
            SELECT big, small, flag, day, instant, extract(epoch FROM instant)::bigint AS epoch, ratio,
                   blob, doc ->> 'tab' AS tab
            FROM typed ORDER BY big
            """
        ).rows
        #expect(rows.count == 2)
        #expect(try rows[0].int64("big") == -9_223_372_036_854_775_807)
        #expect(try rows[0].int("small") == 0)
        #expect(try rows[0].bool("flag") == true)
        #expect(try rows[0].date("day") == PostgresDate(year: 2024, month: 2, day: 29))
        #expect(try rows[0].int64("epoch") == 1_700_000_000)
        #expect(try rows[0].double("ratio") == -0.5)
        #expect(try rows[0].bytes("blob") == Data([0x5c, 0x00, 0xff]))
        #expect(try rows[0].string("tab") == "a\tb")
        #expect(try rows[1].int64("big") == 1_234_567_890_123)
        #expect(try rows[1].int("small") == -42)
        #expect(try rows[1].bool("flag") == false)
        #expect(try rows[1].string("day") == "1969-12-31")
        #expect(try rows[1].int64("epoch") == -1)
        #expect(try rows[1].string("instant") == "1969-12-31 23:59:59+00")
        #expect(try rows[1].isNull("ratio"))
        #expect(try rows[1].bytes("blob") == nil)
    }

    @Test("COPY in of many rows crosses chunk boundaries intact")
    func manyRows() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE samples (n bigint, source text)")
        let stored = try connection.copyIn("COPY samples FROM STDIN") { writer in
            for n in 0..<50_000 { try writer.writeRow(["\(n)", "Watch\t\(n % 7)"]) }
        }
        #expect(stored == 50_000)
        let row = try connection.execute(
            "SELECT count(*) AS c, sum(n) AS s, count(*) FILTER (WHERE source = 'Watch' || chr(9) || '3') AS threes FROM samples"
        ).single()
        #expect(try row.int64("c") == 50_000)
        #expect(try row.int64("s") == 1_249_975_000)  // 0 + 1 + ... + 49 999
        #expect(try row.int64("threes") == 7143)  // n % 7 == 3 for n < 50 000
    }

    @Test("an error thrown while producing rows aborts the COPY and stores nothing")
    func producerErrorAborts() throws {
        struct Stop: Error {}
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE samples (n int)")
        #expect(throws: Stop.self) {
            try connection.copyIn("COPY samples FROM STDIN") { writer in
                for n in 0..<10 { try writer.writeRow(["\(n)"]) }
                try writer.flush()
                throw Stop()
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM samples").single().int(0) == 0)
        // The connection is usable afterwards.
        #expect(try connection.execute("SELECT 7").single().int(0) == 7)
    }

    @Test("a bad value fails the COPY with copyFailed and the server's SQLSTATE")
    func badValueFails() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE samples (n int)")
        let error = #expect(throws: PostgresError.self) {
            try connection.copyIn("COPY samples FROM STDIN", name: "samples.copy") { writer in
                try writer.writeRow(["1"])
                try writer.writeRow(["not a number"])
            }
        }
        #expect(error?.kind == .copyFailed)
        #expect(error?.sqlState == "22P02")
        #expect(error?.statement == "samples.copy")
        #expect(try connection.execute("SELECT count(*) FROM samples").single().int(0) == 0)
    }

    @Test("an error thrown while consuming COPY out cancels it and leaves the connection usable")
    func consumerErrorCancels() throws {
        struct Enough: Error {}
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        var seen = 0
        #expect(throws: Enough.self) {
            try connection.copyOut("COPY (SELECT generate_series(1, 200000)) TO STDOUT") { _ in
                seen += 1
                if seen == 3 { throw Enough() }
            }
        }
        #expect(seen == 3)
        #expect(try connection.execute("SELECT 8").single().int(0) == 8)
    }

    @Test("COPY statements are refused by execute, and non-COPY statements by copyIn")
    func wrongEntryPoints() throws {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        try connection.execute("CREATE TABLE samples (n int)")
        let viaExecute = #expect(throws: PostgresError.self) { try connection.execute("COPY samples FROM STDIN") }
        #expect(viaExecute?.kind == .invalidUse)
        let viaCopy = #expect(throws: PostgresError.self) { try connection.copyIn("SELECT 1") { _ in } }
        #expect(viaCopy?.kind == .invalidUse)
        #expect(try connection.execute("SELECT 9").single().int(0) == 9)
    }
}
