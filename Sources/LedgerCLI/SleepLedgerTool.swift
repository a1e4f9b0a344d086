import CLICommon
import Foundation
import LedgerServices

/// The `sleepledger` executable: database, migrations, users (and, with later issues,
/// import and rollup). `main` calls ``run(arguments:environment:console:)`` and exits
/// with its code.
public enum SleepLedgerTool {
    static let usage = """
        Usage: sleepledger <command> [options]

        Commands:
          db status|start|stop|url   Manage the embedded PostgreSQL cluster
          migrate [--status]         Apply pending schema migrations, or list them
          user add|list|set|remove|passwd  Manage users and their web passwords
          import --user HANDLE FILE... Import Apple Health exports (zip, XML, CSV, -)
          rollup [--user H] [--all]  Build nights and summaries from stored samples
          token create|list|revoke   Personal API tokens for the upload server
          serve [--listen HOST:PORT] The upload server (docs/http-api.md)
          worker [--once]            Import queued uploads outside the server
        Options:
          --help                     Show help (also after any command)
          --version                  Show the version

        Configuration comes from the environment: DATABASE_URL, or libpq's PG* variables,
        or else the embedded default under SLEEPLEDGER_HOME. See docs/cli.md.
        """

    /// Runs one invocation; `arguments` excludes the program name. Never throws: every
    /// error is printed as one line to standard error and mapped to an exit code.
    public static func run(arguments: [String], environment: [String: String], console: Console)
        -> ExitCode
    {
        ErrorReport.reporting(program: "sleepledger", environment: environment, console: console) {
            try dispatch(arguments, environment: environment, console: console)
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String], console: Console) throws {
        guard let command = arguments.first else {
            console.writeError(usage + "\n")
            throw CLIError.usage("missing command")
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            console.print(usage)
        case "--version":
            console.print("sleepledger \(SleepLedgerVersion.current)")
        case "db":
            try DatabaseCommand.run(rest, environment: environment, console: console)
        case "migrate":
            try MigrateCommand.run(rest, environment: environment, console: console)
        case "user":
            try UserCommand.run(rest, environment: environment, console: console)
        case "import":
            try ImportCommand.run(rest, environment: environment, console: console)
        case "rollup":
            try RollupCommand.run(rest, environment: environment, console: console)
        case "token":
            try TokenCommand.run(rest, environment: environment, console: console)
        case "serve":
            try ServeCommand.run(rest, environment: environment, console: console)
        case "worker":
            try WorkerCommand.run(rest, environment: environment, console: console)
        default:
            throw CLIError.usage("unknown command '\(command)'", help: usage)
        }
    }
}
