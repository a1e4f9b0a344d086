public import CLICommon
import LedgerReadServices

/// The `sleepledger-admin` executable: a read-only view of users' sleep debt for admins
/// and support staff (docs/admin.md). It connects as the read-only role in a session that
/// is read-only by its own doing (``LedgerDatabase/openReadOnly(readOnlyURL:)``, not the
/// role's default, which the role may change), checks the schema, and runs each command
/// inside one read-only transaction.
public enum AdminTool {
    static let usage = """
        Usage: sleepledger-admin <command> [options]

        A read-only tool for admins and support staff. It shows what the last rollup
        stored; --as-of DATE computes another day on the fly from the stored nights.

        Commands:
          users [--sort debt|score|handle|last-night] [--severity S]   One row per user
          summary HANDLE [--horizon H]          The dashboard: debt headline first
          debt HANDLE [--horizon H]             The debt series, per bucket
          nights HANDLE [--from D] [--to D] [--naps]   Every stored night
          chart HANDLE --kind debt|duration [--horizon H] --output FILE.svg   An SVG chart
          imports HANDLE                        Import history with counts and diagnostics
          export HANDLE --output FILE.zip       All the user's data as one zip (mode 0600)
        Options:
          --format text|json|csv   Output format (csv for tables)
          --help                   Show help (also after any command)
          --version                Show the version

        Connects as sleepledger_readonly: SLEEPLEDGER_ADMIN_DATABASE_URL, else DATABASE_URL
        or PG* with that user, else the running embedded cluster. See docs/admin.md.
        """

    /// Runs one invocation; `arguments` excludes the program name. Never throws: errors
    /// are one line on standard error and an exit code.
    public static func run(arguments: [String], environment: [String: String], console: Console) -> ExitCode {
        ErrorReport.reporting(program: "sleepledger-admin", environment: environment, console: console) {
            try dispatch(arguments, environment: environment, console: console)
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], console: Console) throws {
        guard let command = arguments.first else {
            console.writeError(usage + "\n")
            throw CLIError.usage("missing command")
        }
        let rest = Array(arguments.dropFirst())
        func run<Command: AdminCommand>(_ type: Command.Type) throws {
            try execute(type, rest, environment: environment, console: console)
        }
        switch command {
        case "--help", "-h", "help": console.print(usage)
        case "--version": console.print("sleepledger-admin \(SleepLedgerVersion.current)")
        case "users": try run(AdminUsersCommand.self)
        case "summary": try run(AdminSummaryCommand.self)
        case "debt": try run(AdminDebtCommand.self)
        case "nights": try run(AdminNightsCommand.self)
        case "chart": try run(AdminChartCommand.self)
        case "imports": try run(AdminImportsCommand.self)
        case "export": try run(AdminExportCommand.self)
        default: throw CLIError.usage("unknown command '\(command)'", help: usage)
        }
    }

    /// Parses the command's arguments (answering `--help` without connecting), opens the
    /// read-only connection and runs the command inside one read-only transaction.
    static func execute<Command: AdminCommand>(
        _ type: Command.Type, _ words: [String], environment: [String: String], console: Console
    ) throws {
        let arguments = try Arguments(words, options: type.options, flags: type.flags, usage: type.usage)
        if arguments.has("help") {
            console.print(type.usage)
            return
        }
        let command = try type.init(arguments: AdminArguments(arguments: arguments, usage: type.usage))
        let configuration = try Configuration(environment: environment, isTerminal: console.isTerminal)
        let session = try configuration.database.openReadOnly(readOnlyURL: configuration.readOnlyURL)
        defer { session.close() }
        let context = AdminContext(
            session: session, console: console, style: AdminStyle(console: console, environment: environment))
        try session.readOnly { try command.run(context) }
    }
}
