/// `sleepledger db status|start|stop|url`: manages the embedded PostgreSQL cluster.
enum DatabaseCommand {
    static let usage = """
        Usage: sleepledger db <status|start|stop|url>

          status   Say whether the embedded cluster exists and runs
          start    Create the cluster on first use and start it (Unix socket only)
          stop     Stop it
          url      Print the libpq connection string for it

        The cluster lives under SLEEPLEDGER_HOME (default ~/.local/share/sleepledger, or
        /var/lib/sleepledger for root). With DATABASE_URL or PG* set, the configured
        database is used instead and these commands only report it.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(words, usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.count == 1, let action = arguments.positionals.first else {
            throw CLIError.usage("db needs exactly one of status, start, stop, url", help: usage)
        }
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        guard let home = database.embeddedHome else {
            guard action == "status" || action == "url" else {
                throw CLIError.usage(
                    "db \(action) manages the embedded default only; an external database is configured")
            }
            return console.print("external database configured (\(database.configuration.description))")
        }
        switch action {
        case "status":
            switch database.clusterState() {
            case .notCreated, nil: console.print("embedded cluster at \(home): not created yet")
            case .stopped: console.print("embedded cluster at \(home): stopped")
            case .running(let pid): console.print("embedded cluster at \(home): running (pid \(pid))")
            }
        case "start":
            try database.startCluster()
            console.print("embedded cluster at \(home): running")
        case "stop":
            try database.stopCluster()
            console.print("embedded cluster at \(home): stopped")
        case "url":
            console.print(database.clusterConninfo() ?? "")
        default:
            throw CLIError.usage("unknown db action '\(action)'", help: usage)
        }
    }
}
