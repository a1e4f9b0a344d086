import Foundation
import LedgerCLI
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// Messages a person can act on: one line each, whatever a typed value holds (control
/// characters are echoed as escapes such as `\n`), the limits said before the database
/// refuses, and help where help is asked for.
@Suite("Messages")
struct MessageTests {
    @Test(
        "control characters in typed values are escaped, on one line",
        arguments: [
            ("plain", "plain"), ("a\nb", "a\\nb"), ("a\r\nb\tc", "a\\r\\nb\\tc"), ("\u{1B}[2J", "\\u{1B}[2J"),
            ("a\u{7F}\u{85}\u{9B}b", "a\\u{7F}\\u{85}\\u{9B}b"), ("a\u{2028}b\u{2029}", "a\\u{2028}b\\u{2029}"),
            ("back\\slash é 李 😀", "back\\slash é 李 😀"), ("\u{0}", "\\u{0}"),
        ])
    func escaping(text: String, escaped: String) {
        #expect(MessageText.escaped(text) == escaped)
        #expect(MessageText.quoted(text) == "'\(escaped)'")
    }

    @Test(
        "usage errors echo what was typed on one line",
        arguments: [
            (["fro\nb"], "sleepledger: unknown command 'fro\\nb'"),
            (["user", "list", "--fo\nrmat", "csv"], "sleepledger: unknown option '--fo\\nrmat'"),
            (["user", "fl\u{1B}[31mip"], "sleepledger: unknown user action 'fl\\u{1B}[31mip'"),
            (
                ["rollup", "--as-of", "2024-01-01\n"],
                "sleepledger: --as-of must be a date YYYY-MM-DD from 1900-01-01 through 2199-12-31, not '2024-01-01\\n'"
            ),
        ])
    func usageErrors(arguments: [String], line: String) {
        let (code, captured) = runTool(arguments)
        #expect(code == .usage)
        #expect(captured.errorText.hasPrefix(line + "\n"))
        // The first line is the whole message; the usage follows after a blank line.
        #expect(captured.errorText.split(separator: "\n", omittingEmptySubsequences: false)[1].isEmpty)
    }

    @Test("a file name with a newline: a missing file is one line, exit 66")
    func missingFileName() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let path = fixture.folder.appendingPathComponent("sleep\nexport.xml").path
        let (code, captured) = runTool(["import", "--user", "anna", path], environment: fixture.environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger: cannot read \(MessageText.escaped(path)): no such file\n")
        #expect(captured.errorText.contains("sleep\\nexport.xml"))
    }

    @Test("a file name with a newline: a bad file and its rejected records are one line each")
    func badFileName() throws {
        let fixture = try ImportFixture()
        defer { fixture.remove() }
        let bad = fixture.folder.appendingPathComponent("not\nan export.xml")
        try Data("hello\n".utf8).write(to: bad)
        var (code, captured) = runTool(["import", "--user", "anna", bad.path], environment: fixture.environment)
        #expect(code == .dataError)
        #expect(
            captured.errorText.hasPrefix("sleepledger: \(MessageText.escaped(bad.path)): not an Apple Health export"))
        #expect(captured.errorText.filter(\.isNewline).count == 1)

        let csv = fixture.folder.appendingPathComponent("sleep\r\nnight.csv")
        try Data(
            """
            sourceName,startDate,endDate,value
            Watch,2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,Bogus\u{1B}[2J
            Watch,2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,AsleepCore

            """.utf8
        ).write(to: csv)
        (code, captured) = runTool(["import", "--user", "anna", csv.path], environment: fixture.environment)
        #expect(code == .success, "\(captured.errorText)")
        // The report is text output: its values show stand-ins for control characters.
        let lines = captured.printed.split(separator: "\n")
        let shownPath = TerminalText.replacingControlCharacters(in: csv.path, keepingLayout: false)
        #expect(lines.first?.hasPrefix("\(shownPath): csv") == true)
        // The reader stores the value's ESC as U+FFFD (as XML 1.0 requires of exports).
        #expect(lines.contains { $0.hasSuffix("night.csv:2: unknown sleep value \"Bogus�[2J\"") })
        #expect(!captured.printed.contains("\u{1B}"))
        #expect(!captured.printed.contains("\r"))

        (code, captured) = runTool(
            ["import", "--user", "anna", "--strict", csv.path], environment: fixture.environment)
        #expect(code == .dataError)
        #expect(captured.errorText.filter(\.isNewline).count == 1)
        #expect(captured.errorText.contains("Bogus�[2J"))
    }

    @Test(
        "sleepledger migrate stopped by colliding handles: exit 65, the user ids, the handles with SLEEPLEDGER_DEBUG=1")
    func migrateWithCollidingHandles() throws {
        let server = try TestDatabase.server()
        let name = "sleepledger_test_c_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let maintenance = try Connection(conninfo: server.maintenanceConninfo)
        try maintenance.execute(
            """
            CREATE DATABASE \(try maintenance.quoteIdentifier(name))
            TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'
            """)
        maintenance.close()
        defer { try? TestDatabase.drop(name) }
        let conninfo = server.conninfoForDatabase(name)
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version <= 6 }).migrate(on: connection)
        var ids: [Int64] = []
        for handle in ["Åsa", "åsa"] {
            ids.append(
                try connection.execute(
                    "INSERT INTO users (handle, time_zone) VALUES ($1, 'UTC') RETURNING id", [.text(handle)]
                ).single().int64(0) ?? 0)
        }
        let environment = ["DATABASE_URL": conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
        var (code, captured) = runTool(["migrate"], environment: environment)
        #expect(code == .dataError)
        #expect(
            captured.errorText
                == "sleepledger: migrationFailed: migration 0007_handle_keys.sql failed: 1 group(s) of users have "
                + "handles that are one handle under the new rule (Unicode NFC and full case folding): "
                + "users \(ids[0]), \(ids[1]). Rename all but one user of each group (docs/operations.md, Handles), "
                + "then migrate again [SQLSTATE 23505] (statement 0007_handle_keys.sql)\n")
        var debugEnvironment = environment
        debugEnvironment["SLEEPLEDGER_DEBUG"] = "1"
        (code, captured) = runTool(["migrate"], environment: debugEnvironment)
        #expect(code == .dataError)
        let lines = captured.errorText.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.contains("one handle: \(ids[0]) 'Åsa' = \(ids[1]) 'åsa'") == true)

        try connection.execute("UPDATE users SET handle = 'asa2' WHERE id = $1", [.int64(ids[1])])
        (code, captured) = runTool(["migrate"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("applied  0007_handle_keys.sql"))
    }

    @Test("make-export --help prints its usage and exits 0; a bad option is a usage error")
    func makeExportHelp() throws {
        for flag in ["--help", "-h"] {
            let result = try runProcess("make-export", [flag], environment: [:])
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("usage: make-export --size 500MB"))
            #expect(result.error.isEmpty)
        }
        let bad = try runProcess("make-export", ["--until", "1899-12-31", "--output", "x"], environment: [:])
        #expect(bad.status == 64)
        #expect(
            bad.error.hasPrefix(
                "make-export: bad date 1899-12-31, expected YYYY-MM-DD from 1900-01-01 through 2199-12-31\n"))
        #expect(bad.output.isEmpty)
    }
}
