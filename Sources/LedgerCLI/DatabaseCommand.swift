import EmbeddedPostgres
import Foundation
import LedgerServices

/// `sleepledger db status|start|stop|url|setup-backups|backup|backups|restore`: manages
/// the embedded PostgreSQL cluster and its backups.
enum DatabaseCommand {
    static let usage = """
        Usage: sleepledger db <action> [options]

          status   Say whether the embedded cluster exists and runs, whether WAL archiving
                   works and when the last good backup was
          start    Create the cluster on first use and start it (Unix socket only)
          stop     Stop it
          url      Print the libpq connection string for it
          setup-backups --repository PATH [--tombstones FILE] [--archive-timeout SECONDS]
                        [--keep-full N]
                   Set up pgBackRest backups: an encrypted repository at PATH (outside the
                   data folder, on another disk), continuous WAL archiving (a commit is
                   archived within --archive-timeout, default 60 s), the first full backup.
                   Prints the repository's passphrase once: keep a copy elsewhere
          backup [--type full|diff|incr]
                   Take a backup (default incr; the first is always full)
          backups [--format text|json]
                   List the backups in the repository with their sizes and times
          restore --to TIME | --latest [--repository PATH --passphrase-file FILE]
                   Replace the stopped cluster by its state at TIME (ISO 8601 with a zone,
                   such as 2026-12-06T08:30:00Z) or at the end of the archived WAL; deleted
                   accounts stay deleted; ends with a new full backup. --repository (with
                   its passphrase) restores onto a new disk that has lost the configuration

        The cluster lives under SLEEPLEDGER_HOME (default ~/.local/share/sleepledger, or
        /var/lib/sleepledger for root). With DATABASE_URL or PG* set, the configured
        database is used instead and these commands only report it; back an external
        server up with pgbackrest itself (docs/operations.md, "Backups").
        """

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(
            words,
            options: [
                "repository", "tombstones", "archive-timeout", "keep-full", "type", "format", "to", "passphrase-file",
            ],
            flags: ["latest"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.count == 1, let action = arguments.positionals.first else {
            throw CLIError.usage(
                "db needs exactly one action: status, start, stop, url, setup-backups, backup, backups or restore",
                help: usage)
        }
        let database = try Configuration(environment: environment, isTerminal: console.isTerminal).database
        guard let home = database.embeddedHome else {
            guard action == "status" || action == "url" else {
                throw CLIError.usage(
                    "db \(action) manages the embedded default only; an external database is configured")
            }
            console.print("external database configured (\(database.configuration.description))")
            // Archiving as the server reports it; backups there are pgBackRest's own (`pgbackrest info`).
            if action == "status" { for line in database.backupHealth().lines { console.print(line) } }
            return
        }
        switch action {
        case "status":
            status(database, home: home, console: console)
        case "start":
            try database.startCluster()
            console.print("embedded cluster at \(home): running")
        case "stop":
            try database.stopCluster()
            console.print("embedded cluster at \(home): stopped")
        case "url":
            console.print(database.clusterConninfo() ?? "")
        case "setup-backups":
            try setUpBackups(arguments, database: database, console: console)
        case "backup":
            let text = arguments.value("type") ?? BackupType.incr.rawValue
            guard let type = BackupType(rawValue: text) else {
                throw CLIError.usage("--type must be full, diff or incr, not '\(text)'", help: usage)
            }
            let record = try database.backUp(type: type)
            console.print("backup \(record.label) (\(record.type.rawValue)) done: \(describe(record))")
        case "backups":
            try list(arguments, database: database, console: console)
        case "restore":
            try restore(arguments, database: database, console: console)
        default:
            throw CLIError.usage("unknown db action '\(action)'", help: usage)
        }
    }

    static func status(_ database: LedgerDatabase, home: String, console: Console) {
        switch database.clusterState() {
        case .notCreated, nil: console.print("embedded cluster at \(home): not created yet")
        case .stopped: console.print("embedded cluster at \(home): stopped")
        case .running(let pid): console.print("embedded cluster at \(home): running (pid \(pid))")
        }
        let health = database.backupHealth()
        for line in health.lines { console.print(line) }
    }

    static func setUpBackups(_ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        guard let repository = arguments.value("repository"), !repository.isEmpty else {
            throw CLIError.usage("setup-backups needs --repository PATH (a folder on another disk)", help: usage)
        }
        let timeout = try arguments.value("archive-timeout").map { try positive($0, "archive-timeout") }
        let kept = try arguments.value("keep-full").map { try positive($0, "keep-full") }
        let settings = BackupSettings(
            repository: repository, tombstoneFile: arguments.value("tombstones"),
            archiveTimeoutSeconds: timeout ?? BackupSettings.defaultArchiveTimeoutSeconds,
            fullBackupsKept: kept ?? BackupSettings.defaultFullBackupsKept)
        let (passphrase, first) = try database.setUpBackups(settings)
        console.print(
            """
            backups set up: repository \(settings.repository), WAL archived within \(settings.archiveTimeoutSeconds) s, \
            \(settings.fullBackupsKept) full backups kept, tombstones in \(settings.tombstoneFile)
            first full backup \(first.label): \(describe(first))
            The repository is encrypted (aes-256-cbc) with this passphrase, shown only now:

                \(passphrase)

            Keep a copy somewhere other than this machine (a password manager): without it no
            backup can be restored after this disk is lost. It is also in the data folder's
            backup/pgbackrest.conf (mode 0600).
            """)
    }

    static func list(_ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        let format = try OutputFormat.parse(arguments.value("format"), usage: usage)
        let backups = try database.listBackups()
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            console.print(String(decoding: try encoder.encode(backups), as: UTF8.self))
            return
        }
        guard !backups.isEmpty else { return console.print("no backups yet") }
        for record in backups {
            console.print(
                "\(record.label)  \(record.type.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0))  \(describe(record))"
            )
        }
    }

    static func restore(_ arguments: Arguments, database: LedgerDatabase, console: Console) throws {
        let target: ClusterBackups.Target
        switch (arguments.value("to"), arguments.has("latest")) {
        case (let text?, false):
            guard let seconds = parseTime(text) else {
                throw CLIError.badInput(
                    "--to must be an ISO 8601 time with a zone, such as 2026-12-06T08:30:00Z, not '\(text)'")
            }
            target = .time(text: text, seconds: seconds)
        case (nil, true):
            target = .latest
        default:
            throw CLIError.usage("restore needs exactly one of --to TIME and --latest", help: usage)
        }
        var repository: BackupSettings?
        var passphrase: String?
        if let path = arguments.value("repository") {
            repository = BackupSettings(repository: path, tombstoneFile: arguments.value("tombstones"))
            if let file = arguments.value("passphrase-file") {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CLIError.badInput("cannot read the passphrase file \(file)")
                }
                passphrase = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let restore = try database.restore(to: target, repository: repository, passphrase: passphrase) { line in
            console.note("sleepledger: " + line)
        }
        for removed in restore.reappliedDeletions { console.note("sleepledger: " + LedgerDatabase.logLine(removed)) }
        console.print(
            "restored; \(restore.reappliedDeletions.count) deleted account(s) removed again; "
                + "new full backup \(restore.newFullBackup.label): \(describe(restore.newFullBackup))")
    }

    /// An ISO 8601 time with a zone (`Z` or an offset), with or without fractional seconds,
    /// a space instead of the `T` accepted; seconds since 1970.
    static func parseTime(_ text: String) -> Double? {
        var normalized = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        // PostgreSQL's "+00" offsets: ISO 8601 wants "+00:00".
        if let sign = normalized.lastIndex(where: { $0 == "+" || $0 == "-" }),
            sign > normalized.index(normalized.startIndex, offsetBy: min(10, normalized.count))
        {
            let offset = normalized[normalized.index(after: sign)...]
            if offset.count == 2, offset.allSatisfy(\.isNumber) { normalized += ":00" }
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: normalized) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: normalized)?.timeIntervalSince1970
    }

    static func describe(_ record: BackupRecord) -> String {
        "ended \(ClusterBackups.timestamp(record.stoppedAt)) after \(Int(record.stoppedAt - record.startedAt)) s, "
            + "cluster \(bytes(record.databaseBytes)), \(bytes(record.repositoryBytes)) added to the repository"
    }

    static func bytes(_ count: Int64) -> String {
        if count >= 1 << 30 { return String(format: "%.1f GiB", Double(count) / Double(1 << 30)) }
        if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
        return String(format: "%.0f KiB", Double(count) / 1024)
    }

    static func positive(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value > 0 else {
            throw CLIError.usage("--\(name) must be a whole number above zero, not '\(text)'", help: usage)
        }
        return value
    }
}
