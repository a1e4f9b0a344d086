import AdminCLI
import Foundation
import LedgerCLI
import LedgerTestSupport
import Testing

/// `sleepledger` and `sleepledger-admin`, run in-process with a malformed connection
/// string holding a recognisable password, print the failure without the password, also
/// with `SLEEPLEDGER_DEBUG=1`.
@Suite("No password in what the tools print")
struct SecretOutputTests {
    typealias Malformed = MalformedConnectionStrings

    /// Commands of both tools and the variable each takes the string from.
    static let runs: [(tool: String, variable: String, arguments: [String])] = [
        ("sleepledger", "DATABASE_URL", ["user", "list"]),
        ("sleepledger", "DATABASE_URL", ["user", "add", "anna", "--time-zone", "UTC"]),
        ("sleepledger", "DATABASE_URL", ["migrate", "--status"]),
        ("sleepledger", "DATABASE_URL", ["migrate"]),
        ("sleepledger", "DATABASE_URL", ["db", "status"]),
        ("sleepledger", "DATABASE_URL", ["db", "url"]),
        ("sleepledger", "DATABASE_URL", ["rollup", "--all"]),
        ("sleepledger", "DATABASE_URL", ["import", "--user", "anna", "--dry-run", #filePath]),
        ("sleepledger-admin", "DATABASE_URL", ["users"]),
        ("sleepledger-admin", "DATABASE_URL", ["nights", "anna", "--format", "json"]),
        ("sleepledger-admin", Configuration.readOnlyURLVariable, ["imports", "anna"]),
    ]

    @Test("no output of either tool shows the password", arguments: Malformed.cases)
    func noPasswordPrinted(_ malformed: Malformed.Case) {
        for run in Self.runs {
            for debug in [false, true] {
                var environment = [
                    run.variable: malformed.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder,
                    "SLEEPLEDGER_HOME": "/nonexistent/sleepledger-secret-test",
                ]
                if debug { environment["SLEEPLEDGER_DEBUG"] = "1" }
                let captured = CapturedConsole()
                let code =
                    run.tool == "sleepledger"
                    ? SleepLedgerTool.run(arguments: run.arguments, environment: environment, console: captured.console)
                    : AdminTool.run(arguments: run.arguments, environment: environment, console: captured.console)
                let label = "\(run.tool) \(run.arguments.joined(separator: " ")) (debug \(debug))"
                #expect(!Malformed.showsPassword(captured.printed), "\(label): \(captured.printed)")
                #expect(!Malformed.showsPassword(captured.errorText), "\(label): \(captured.errorText)")
                if run.arguments.first == "db" {
                    // Only reports the configured database.
                    #expect(code == .success || code == .usage, "\(label)")
                } else {
                    #expect(code == .unavailable, "\(label): \(captured.errorText)")
                    #expect(captured.errorText.hasPrefix("\(run.tool): "), "\(label)")
                }
            }
        }
    }

    @Test(
        "with libpq's PG* variables, a password pasted into PGPORT or PGSSLMODE is not printed either",
        arguments: ["PGPORT", "PGSSLMODE"])
    func libpqEnvironment(variable: String) throws {
        // Real processes: libpq reads these from the process environment.
        let environment = [
            "PGHOST": "/nonexistent", "PGPASSWORD": Malformed.password, variable: Malformed.password,
            "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder, "SLEEPLEDGER_DEBUG": "1",
        ]
        for (tool, arguments) in [("sleepledger", ["user", "list"]), ("sleepledger-admin", ["users"])] {
            let result = try runProcess(tool, arguments, environment: environment)
            #expect(result.status == ExitCode.unavailable.rawValue, "\(tool): \(result.error)")
            #expect(result.error.contains("***"), "\(tool): \(result.error)")
            #expect(!Malformed.showsPassword(result.output + result.error), "\(tool): \(result.error)")
        }
    }

    @Test("the configuration's description shows where, without the password")
    func configurationDescription() throws {
        let configuration = try Configuration(
            environment: [
                "DATABASE_URL": "postgresql://anna:\(Malformed.password)@db.example/ledger",
                Configuration.readOnlyURLVariable: "postgresql://ro:\(Malformed.password)@db.example/ledger",
            ], isTerminal: false)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(configuration)", String(reflecting: configuration), dumped] {
            #expect(!Malformed.showsPassword(text), "\(text)")
        }
        #expect("\(configuration)".contains("host=db.example"))
        #expect("\(configuration)".contains("password=***"))
    }
}
