import Foundation
import LedgerServer
import LedgerServices

/// `sleepledger worker`: imports queued uploads outside the server (another process or
/// host), until SIGTERM or SIGINT, or with `--once` until the queue is empty.
enum WorkerCommand {
    static let usage = """
        Usage: sleepledger worker [--shared-spool] [--workers N] [--job-cpu DURATION] [--once]

          --shared-spool   The servers' spool folder is shared by several hosts (mounted
                           at the same path on each): import any host's jobs, not only
                           those spooled on this host
          --workers N      Import threads (default 1)
          --job-cpu DURATION
                           Fail an import job whose threads use more CPU time than
                           this (default 10m; such as 90s, 10m, 1h, or seconds)
          --once           Import what is queued now, then exit

        Connects as the sleepledger_server role, like the server (see `sleepledger serve
        --help`); after each import the user's rollup runs as `sleepledger rollup` does.
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words, options: ["workers", JobCPUOption.name], flags: ["shared-spool", "once"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.isEmpty else { throw CLIError.usage("worker takes no arguments", help: usage) }
        let reader = try JobCPUOption.readerOptions(arguments, usage: usage)
        let settings = try Configuration(environment: environment, isTerminal: console.isTerminal)
        // One worker thread per core by default: two malloc arenas.
        MallocArenas.limit(environment)
        let database = settings.database
        if database.embeddedHome != nil { try database.startCluster() }
        try DeletionsAtStart.reapply(database) { console.note(ServeCommand.stamp() + " " + $0) }
        let serverURL = environment["SLEEPLEDGER_SERVER_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let count = try arguments.value("workers").map { try ServeCommand.number($0, "workers") } ?? 1
        let host = ProcessInfo.processInfo.hostName
        // The workers' sessions, one each, as the server's role, and one for the renewals of
        // their claims' leases (each a short transaction).
        let pool = SessionPool(capacity: max(1, count) + 1) { try database.openAsServer(serverURL: serverURL) }
        defer { pool.close() }
        let workers = ImportWorkers(
            count: max(1, count), host: host, isSpoolShared: arguments.has("shared-spool"),
            options: ImportService.Options(reader: reader, lockWaitSeconds: settings.importLockWaitSeconds),
            database: database, sessions: pool, log: { line in console.note(ServeCommand.stamp() + " " + line) })
        if arguments.has("once") {
            let done = workers.drain()
            console.print("imported \(done) queued upload\(done == 1 ? "" : "s")")
            return
        }
        workers.start()
        console.note("sleepledger: worker running on \(host); stop with SIGTERM or Ctrl-C")
        ServeCommand.waitForStopSignal()
        workers.stop(waitingUpTo: 3600)
    }
}
