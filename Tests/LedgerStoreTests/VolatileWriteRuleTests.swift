import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Issue 21, item 3: no statement that updates rows (an UPDATE, an INSERT ... ON CONFLICT
/// DO UPDATE, a SELECT ... FOR UPDATE) calls a volatile function such as
/// `clock_timestamp()` or `random()`, which a distributed database (Citus) refuses in
/// writes to its tables: the time is passed in as a parameter, or is `now()` where the
/// transaction's time is right. Checked in the body of every function of schema `public`
/// (`pg_proc.prosrc`, after every migration) and in the SQL string literals of the Swift
/// sources (docs/operations.md, "Schema rules").
@Suite("Volatile functions in writes")
struct VolatileWriteRuleTests {
    /// Functions refused whatever the catalog says of them: `statement_timestamp()` is
    /// STABLE, yet differs from one statement (and one node) to the next.
    static let namedFunctions = ["clock_timestamp", "random", "timeofday", "statement_timestamp"]

    /// The named functions, and every VOLATILE function of `pg_catalog` and `public`.
    static func forbiddenFunctions(_ connection: Connection) throws -> [String] {
        let volatile = try connection.execute(
            """
            SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('pg_catalog', 'public') AND p.provolatile = 'v' AND p.prokind = 'f'
            """
        ).rows.compactMap { try $0.string(0) }
        return Array(Set(namedFunctions + volatile)).sorted()
    }

    /// Finds calls of the functions named `names` (bare or `pg_catalog.`-qualified, not a
    /// method such as Swift's `UInt32.random(in:)`) in statements that update rows.
    struct Check {
        let calls: NSRegularExpression
        let writes: NSRegularExpression

        init(names: [String]) throws {
            writes = try NSRegularExpression(pattern: #"\bUPDATE\b|\bON\s+CONFLICT\b"#, options: [.caseInsensitive])
            let alternatives = names.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
            calls = try NSRegularExpression(
                pattern: #"(?<![\w.$"])(?:pg_catalog\.)?("# + alternatives + #")\s*\("#, options: [.caseInsensitive])
        }

        /// The functions `statement` calls that it may not, when it updates rows; SQL line
        /// comments are left out.
        func offenders(in statement: String) -> [String] {
            let code = statement.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
            let whole = NSRange(code.startIndex..., in: code)
            guard writes.firstMatch(in: code, range: whole) != nil else { return [] }
            return calls.matches(in: code, range: whole).compactMap { match in
                Range(match.range(at: 1), in: code).map { code[$0].lowercased() }
            }
        }
    }

    /// The offending statements of every function of schema `public`, as
    /// `function: callee, ...`.
    static func functionOffenders(_ connection: Connection) throws -> [String] {
        let check = try Check(names: try forbiddenFunctions(connection))
        var offenders: [String] = []
        let functions = try connection.execute(
            """
            SELECT p.oid::regprocedure::text, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' ORDER BY 1
            """
        ).rows
        for function in functions {
            guard let name = try function.string(0), let body = try function.string(1) else { continue }
            for statement in body.split(separator: ";") {
                let called = check.offenders(in: String(statement))
                if !called.isEmpty { offenders.append("\(name): \(called.joined(separator: ", "))") }
            }
        }
        return offenders
    }

    @Test("no function of schema public calls a volatile function in a statement that updates rows")
    func functionBodies() throws {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        defer { connection.close() }
        let functions = try connection.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'"
        ).single().int(0)
        #expect((functions ?? 0) > 0)
        #expect(try Self.functionOffenders(connection) == [])
    }

    @Test("the function check catches clock_timestamp() in an UPDATE and leaves a SELECT of it alone")
    func functionCheckCatchesOffender() throws {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        defer { connection.close() }
        try connection.execute(
            """
            CREATE FUNCTION bad_finish(job bigint) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE import_jobs SET finished_at = pg_catalog.clock_timestamp() WHERE id = job;
                PERFORM clock_timestamp();
            END
            $$
            """)
        try connection.execute(
            """
            CREATE FUNCTION bad_mark(who bigint) RETURNS void LANGUAGE sql AS $$
                INSERT INTO rollup_state (user_id, updated_at) VALUES (who, now())
                ON CONFLICT (user_id) DO UPDATE SET updated_at = timeofday()::timestamptz
            $$
            """)
        #expect(
            try Self.functionOffenders(connection) == [
                "bad_finish(bigint): clock_timestamp", "bad_mark(bigint): timeofday",
            ])
    }

    /// The SQL string literals of a Swift file, each with the line it starts on: every
    /// multi-line literal (`"""`) on its own, and one-line literals joined when their lines
    /// are joined with `+` (a statement built in pieces). Comment lines are left out.
    static func stringLiterals(_ source: String) throws -> [(line: Int, text: String)] {
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        var found: [(line: Int, text: String)] = []
        var block: (line: Int, text: String)?
        var run: (line: Int, text: String)?
        var isContinued = false
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line)
            let quotes = text.components(separatedBy: "\"\"\"").count - 1
            if var open = block {
                if quotes > 0 {
                    found.append(open)
                    block = nil
                } else {
                    open.text += text + "\n"
                    block = open
                }
                continue
            }
            if quotes % 2 == 1 {
                if let pending = run { found.append(pending) }
                run = nil
                block = (index + 1, "")
                continue
            }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let pieces =
                trimmed.hasPrefix("//")
                ? []
                : literal.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                    Range($0.range, in: text).map { String(text[$0]) }
                }
            let continues = isContinued || trimmed.hasPrefix("+")
            if pieces.isEmpty || !continues, let pending = run {
                found.append(pending)
                run = nil
            }
            if !pieces.isEmpty {
                var joined = run ?? (index + 1, "")
                joined.text += pieces.joined(separator: " ") + "\n"
                run = joined
            }
            isContinued = !pieces.isEmpty && trimmed.hasSuffix("+")
        }
        if let pending = run { found.append(pending) }
        return found
    }

    /// The offending literals of the Swift files under `folder`, as `path:line: callee, ...`.
    static func swiftOffenders(under folder: String, check: Check) throws -> [String] {
        let root = TestDatabase.repositoryRoot
        guard let paths = FileManager.default.enumerator(atPath: root + "/" + folder) else { return [] }
        var offenders: [String] = []
        for case let path as String in paths where path.hasSuffix(".swift") {
            let source = try String(contentsOfFile: root + "/" + folder + "/" + path, encoding: .utf8)
            for literal in try stringLiterals(source) {
                let called = check.offenders(in: literal.text)
                if !called.isEmpty {
                    offenders.append("\(folder)/\(path):\(literal.line): \(called.joined(separator: ", "))")
                }
            }
        }
        return offenders.sorted()
    }

    @Test("no SQL string in Sources calls a volatile function in a statement that updates rows")
    func swiftSources() throws {
        let connection = try Connection(conninfo: TestDatabase.migrated().conninfo)
        defer { connection.close() }
        let check = try Check(names: try Self.forbiddenFunctions(connection))
        #expect(try Self.swiftOffenders(under: "Sources", check: check) == [])
        // The scan reads the store's statements: the import's UPDATEs are among them.
        let store = try String(
            contentsOfFile: TestDatabase.repositoryRoot + "/Sources/LedgerStore/SampleLoader.swift", encoding: .utf8)
        #expect(try Self.stringLiterals(store).contains { $0.text.contains("UPDATE imports SET status = 'succeeded'") })
    }

    @Test("the source check catches clock_timestamp() in an UPDATE string and leaves other strings alone")
    func swiftCheckCatchesOffender() throws {
        let check = try Check(names: Self.namedFunctions)
        let source = #"""
            let a = try connection.execute(
                """
                UPDATE imports SET finished_at = clock_timestamp()
                WHERE user_id = $1
                """)
            let b = try connection.execute("SELECT clock_timestamp()")
            let c = "INSERT INTO t (a) VALUES (random()) "
                + "ON CONFLICT (a) DO NOTHING"
            let name = "test_\(UInt32.random(in: 0...9))_UPDATE"
            // "UPDATE t SET a = random()" in a comment
            """#
        let found = try Self.stringLiterals(source).map { ($0.line, check.offenders(in: $0.text)) }
            .filter { !$0.1.isEmpty }
        #expect(found.map(\.0) == [2, 7])
        #expect(found.map(\.1) == [["clock_timestamp"], ["random"]])
    }
}
