/// The `sleepledger-admin` executable: a read-only view of users' sleep debt. Its
/// commands arrive with the admin CLI issue; this is its entry point and conventions.
public enum AdminTool {
    static let usage = """
        Usage: sleepledger-admin <command> [options]

        A read-only tool for admins and support staff. It connects as the read-only
        database role (SLEEPLEDGER_ADMIN_DATABASE_URL) and never writes.

        Options:
          --help      Show help
          --version   Show the version
        """

    /// Runs one invocation; `arguments` excludes the program name.
    public static func run(arguments: [String], environment: [String: String], console: Console) -> ExitCode {
        switch arguments.first {
        case "--help", "-h", "help":
            console.print(usage)
            return .success
        case "--version":
            console.print("sleepledger-admin \(SleepLedgerVersion.current)")
            return .success
        case nil:
            console.writeError(usage + "\n")
            return SleepLedgerTool.report(CLIError.usage("missing command"), console: console)
        case let command?:
            return SleepLedgerTool.report(
                CLIError.usage("unknown command '\(command)'", help: usage), console: console)
        }
    }
}
