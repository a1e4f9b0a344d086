import Foundation
import Glibc
import PostgresClient

/// Backups of the embedded cluster with pgBackRest (Debian's `pgbackrest`): setup, full,
/// differential and incremental backups, the list, `check`, `verify` and the pgBackRest
/// part of a restore. The service layer adds what needs the schema (tombstones).
///
/// Layout: `<home>/backup/` (mode 0700, the service user's) holds `pgbackrest.conf` (mode
/// 0600: it holds the repository's passphrase), `settings` (``BackupSettings``),
/// `status.json` (the last backup run, for `db status` and the metrics) and pgBackRest's
/// `log/`, `lock/` and `spool/`. The repository itself is outside the data folder.
///
/// Every pgBackRest command runs as the user the cluster runs as (the service user when
/// the tool runs as root, through `runuser`): a run as root would leave root-owned lock
/// and log files that break the service user's next run (archive-push among them).
public struct ClusterBackups: Sendable {
    /// The cluster backed up.
    public let cluster: EmbeddedCluster

    /// The backups of `cluster`.
    public init(cluster: EmbeddedCluster) {
        self.cluster = cluster
    }

    /// `<home>/backup`.
    public var folder: String { cluster.home + "/backup" }
    /// pgBackRest's configuration, `<home>/backup/pgbackrest.conf`.
    public var configurationFile: String { folder + "/pgbackrest.conf" }
    /// ``BackupSettings``, `<home>/backup/settings`.
    public var settingsFile: String { folder + "/settings" }
    /// The last backup run (``BackupStatus``), `<home>/backup/status.json`.
    public var statusFile: String { folder + "/status.json" }

    /// The `pgbackrest` program: the first on `PATH`, else `/usr/bin/pgbackrest`.
    public static var pgBackRestPath: String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (folders + ["/usr/bin"]).map { $0 + "/pgbackrest" }.first { access($0, X_OK) == 0 }
            ?? "/usr/bin/pgbackrest"
    }

    /// The settings when backups are set up (both files exist), else `nil`.
    public func settings() -> BackupSettings? {
        guard access(configurationFile, F_OK) == 0, let text = SmallFile.text(atPath: settingsFile) else { return nil }
        return BackupSettings(text: text)
    }

    /// The service account the cluster and pgBackRest run as when the tool runs as root.
    var account: ServiceAccount? {
        EmbeddedCluster.isRoot ? ServiceAccount.lookup(cluster.serviceUser) : nil
    }

    // MARK: Setup

    /// Sets up backups: checks the repository is outside the data folder, creates it (or
    /// takes an empty one), generates the passphrase, writes the configuration, restarts
    /// the cluster with archiving on, creates the stanza, runs `pgbackrest check` and takes
    /// the first full backup. Returns the passphrase, which is stored only in
    /// `pgbackrest.conf`: the caller shows it once.
    public func setUp(_ settings: BackupSettings) throws -> (passphrase: String, first: BackupRecord) {
        guard self.settings() == nil else {
            throw BackupError(
                .badInput, "backups are already set up for \(cluster.home) (\(settingsFile))",
                detail: "to start over, move \(folder) away first")
        }
        try checkOutsideDataFolder(settings.repository, what: "the repository")
        try checkOutsideDataFolder(settings.tombstoneFile, what: "the tombstone file")
        try cluster.start()
        let account = self.account
        try cluster.createFolder(folder, mode: 0o700, owner: account)
        try createRepository(settings.repository, account: account)
        let passphrase = try Self.newPassphrase()
        try writeConfiguration(settings, passphrase: passphrase)
        try createTombstoneFile(settings.tombstoneFile, account: account)
        // archive_mode needs a restart: the next start writes it (EmbeddedCluster.start()).
        try cluster.stop()
        try cluster.start()
        try run("stanza-create", ["stanza-create"])
        try check()
        let first = try backup(type: .full)
        return (passphrase, first)
    }

    /// Writes `pgbackrest.conf` and `settings` for `settings` and `passphrase` (setup, and a
    /// restore onto a new disk).
    public func writeConfiguration(_ settings: BackupSettings, passphrase: String) throws {
        let account = self.account
        for path in [folder, folder + "/log", folder + "/spool"] {
            try cluster.createFolder(path, mode: 0o700, owner: account)
        }
        try cluster.writeOwnedFile(
            configurationFile,
            settings.pgBackRestConfiguration(
                home: cluster.home, serviceUser: cluster.serviceUser, passphrase: passphrase),
            account: account)
        try cluster.writeOwnedFile(settingsFile, settings.text, account: account, mode: 0o644)
    }

    /// Refuses `path` when it is inside the data folder (its real path, links resolved).
    func checkOutsideDataFolder(_ path: String, what: String) throws {
        guard path.hasPrefix("/") else {
            throw BackupError(.badInput, "\(what) must be an absolute path: \(path)")
        }
        let home = Self.realPath(cluster.home) + "/"
        let path = (path as NSString).standardizingPath
        let real = Self.realPath(path) + "/"
        guard !real.hasPrefix(home), !(path + "/").hasPrefix(cluster.home + "/") else {
            throw BackupError(
                .badInput, "\(what) \(path) is inside the data folder \(cluster.home)",
                detail: "put it on another disk: a backup on the disk it protects is lost with it")
        }
    }

    /// The real path of `path`, or of its nearest existing parent with the rest appended.
    static func realPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while !existing.isEmpty, existing != "/", access(existing, F_OK) != 0 {
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        guard let resolved = realpath(existing, nil) else { return path }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return ([base == "/" ? "" : base] + rest).joined(separator: "/")
    }

    private func createRepository(_ path: String, account: ServiceAccount?) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard isDirectory.boolValue, contents.isEmpty else {
                throw BackupError(
                    .badInput, "the repository \(path) exists and is not an empty folder",
                    detail: "choose another path, or restore from it with `sleepledger db restore --repository`")
            }
            if let account { chown(path, account.uid, account.gid) }
            chmod(path, 0o750)
            return
        }
        try cluster.createFolder(path, mode: 0o750, owner: account)
    }

    private func createTombstoneFile(_ path: String, account: ServiceAccount?) throws {
        guard access(path, F_OK) != 0 else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackupError(.unavailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        if let account { fchown(descriptor, account.uid, account.gid) }
    }

    /// 32 random bytes from the kernel as 64 hex digits.
    static func newPassphrase() throws -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        guard status == 0 else {
            throw BackupError(.unavailable, "cannot read random bytes for the passphrase")
        }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Commands

    /// `pgbackrest check`: the cluster archives to the repository and a backup could run.
    public func check() throws {
        try requireSetUp()
        try run("pgbackrest check", ["check"])
    }

    /// `pgbackrest verify`: every file of every backup and archived WAL segment in the
    /// repository reads back with its checksum. Throws ``BackupError/Kind/badInput``
    /// quoting what is damaged.
    public func verify() throws {
        try requireSetUp()
        let outcome = try pgBackRest(["verify", "--log-level-console=info"])
        let damaged = outcome.output.split(separator: "\n").filter {
            $0.contains("ERROR") || $0.contains("invalid") || $0.contains("missing")
        }
        guard outcome.status == 0, damaged.isEmpty else {
            throw BackupError(
                .badInput, "the repository \(settings()?.repository ?? "") is damaged (pgbackrest verify)",
                detail: (damaged.isEmpty ? [Substring(tail(outcome.output))] : damaged.suffix(5)).joined(
                    separator: "; "))
        }
    }

    /// The backups in the repository, oldest first (`pgbackrest info`).
    public func list() throws -> [BackupRecord] {
        try requireSetUp()
        let outcome = try pgBackRest(["info", "--output=json", "--log-level-console=off", "--log-level-stderr=error"])
        guard outcome.status == 0 else { throw failure("pgbackrest info", outcome) }
        let stanzas: [BackupRecord.Stanza]
        do {
            stanzas = try JSONDecoder().decode([BackupRecord.Stanza].self, from: Data(outcome.output.utf8))
        } catch {
            throw BackupError(.unavailable, "cannot read the output of pgbackrest info", detail: "\(error)")
        }
        guard let stanza = stanzas.first(where: { $0.name == BackupSettings.stanza }) else { return [] }
        // Status 99 with a cipher failure is a wrong passphrase; 1 a missing stanza.
        if stanza.status.code == 99 || stanza.status.code == 1 {
            throw unreadable(detail: "pgbackrest info: \(stanza.status.message)")
        }
        return stanza.backup.map(BackupRecord.init).sorted { $0.stoppedAt < $1.stoppedAt }
    }

    /// Takes a backup of `type` (the cluster must run) and records the run in
    /// ``statusFile``, failed or not. pgBackRest expires what the retention no longer keeps.
    @discardableResult
    public func backup(type: BackupType) throws -> BackupRecord {
        try requireSetUp()
        guard case .running = cluster.status() else {
            throw BackupError(
                .unavailable,
                "the embedded cluster at \(cluster.home) is not running; start it with `sleepledger db start`")
        }
        let started = Date().timeIntervalSince1970
        var status = BackupStatus.load(from: statusFile) ?? BackupStatus()
        do {
            try run("pgbackrest backup", ["backup", "--type=\(type.rawValue)"])
            guard let record = try list().last else {
                throw BackupError(.unavailable, "pgbackrest backup succeeded but pgbackrest info lists no backup")
            }
            let run = BackupStatus.Run(
                type: type, startedAt: started, endedAt: Date().timeIntervalSince1970, record: record)
            status.lastAttempt = run
            status.lastSuccess = run
            if type == .full { status.lastFullSuccess = run }
            try saveStatus(status)
            return record
        } catch {
            status.lastAttempt = BackupStatus.Run(
                type: type, startedAt: started, endedAt: Date().timeIntervalSince1970, failure: "\(error)")
            try? saveStatus(status)
            throw error
        }
    }

    /// The last backup runs as `db backup` recorded them; `nil` before the first.
    public func status() -> BackupStatus? { BackupStatus.load(from: statusFile) }

    private func saveStatus(_ status: BackupStatus) throws {
        try cluster.writeOwnedFile(statusFile, try status.json(), account: account, mode: 0o644)
    }

    // MARK: Restore

    /// What to restore to.
    public enum Target: Sendable, Equatable {
        /// The end of the archived WAL (everything archived).
        case latest
        /// A moment: `text` as the person gave it (ISO 8601 with a zone, passed to
        /// PostgreSQL's `recovery_target_time`) and the same moment in seconds since 1970.
        case time(text: String, seconds: Double)
    }

    /// The pgBackRest part of a restore, after checks that change nothing: the repository
    /// reads with the passphrase, holds a backup before the target, the cluster does not
    /// run, and `pgbackrest verify` finds nothing damaged. Then restores into the data
    /// folder (`--delta` over an existing one) with recovery to `target`, promoting at the
    /// end. The caller starts the cluster. Returns the backups listed before.
    public func restoreFiles(to target: Target) throws -> [BackupRecord] {
        try requireSetUp()
        let backups = try list()
        guard let first = backups.first else {
            throw BackupError(.badInput, "the repository \(settings()?.repository ?? "") holds no backup to restore")
        }
        if case .time(let text, let seconds) = target, seconds < first.stoppedAt {
            throw BackupError(
                .badInput,
                "the target time \(text) is before the end of the first backup (\(Self.timestamp(first.stoppedAt)))",
                detail: "the earliest time this repository can restore to is \(Self.timestamp(first.stoppedAt))")
        }
        guard !isRunning else {
            throw BackupError(
                .tryLater, "the embedded cluster at \(cluster.home) is running; a restore replaces it",
                detail: "stop it first with `sleepledger db stop` (and the servers and workers using it)")
        }
        try verify()
        let account = self.account
        try cluster.createFolder(cluster.dataFolder, mode: 0o700, owner: account)
        var arguments = ["restore"]
        if access(cluster.dataFolder + "/PG_VERSION", F_OK) == 0 { arguments.append("--delta") }
        switch target {
        case .latest:
            arguments += ["--type=default"]
        case .time(_, let seconds):
            arguments += ["--type=time", "--target=\(Self.recoveryTime(seconds))", "--target-action=promote"]
        }
        try run("pgbackrest restore", arguments)
        return backups
    }

    private var isRunning: Bool {
        if case .running = cluster.status() { return true }
        return false
    }

    /// Waits until the restored cluster has finished recovery and been promoted.
    public func waitUntilPromoted(timeoutSeconds: Double = 3600) throws {
        let connection = try Connection(conninfo: cluster.conninfo(database: "postgres"))
        defer { connection.close() }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let row = try connection.execute("SELECT pg_is_in_recovery()", name: "backup.inRecovery").first
            if try row?.bool(0) == false { return try wakeCheckpointer() }
            usleep(200_000)
        }
        throw BackupError(.unavailable, "the restored cluster is still recovering after \(Int(timeoutSeconds)) s")
    }

    /// Makes PostgreSQL 15's checkpointer honour `archive_timeout` from now on. Started
    /// while the server still replays WAL (every start, after a crash or not), it computes
    /// its first sleep without `archive_timeout` and sleeps up to `checkpoint_timeout`
    /// (5 minutes): until then no segment is switched and nothing recent is archived (found
    /// by deploy/backup-drill.sh). A configuration reload wakes it to compute the sleep
    /// again; it is a no-op otherwise, and harmless during recovery.
    public func wakeCheckpointer() throws {
        let connection = try Connection(conninfo: cluster.conninfo(database: "postgres"))
        defer { connection.close() }
        try connection.execute("SELECT pg_reload_conf()", name: "backup.wakeCheckpointer")
    }

    /// Ends the current WAL segment and archives it at once (`pg_switch_wal`).
    public func switchWAL() throws {
        let connection = try Connection(conninfo: cluster.conninfo(database: "postgres"))
        defer { connection.close() }
        try connection.execute("SELECT pg_switch_wal()", name: "backup.switchWAL")
    }

    // MARK: Running pgBackRest

    private func requireSetUp() throws {
        guard settings() != nil else {
            throw BackupError(
                .unavailable, "backups are not set up for \(cluster.home)",
                detail:
                    "set them up with `sleepledger db setup-backups --repository PATH` (docs/operations.md, \"Backups\")"
            )
        }
    }

    /// Runs pgBackRest with the cluster's configuration and stanza, as the cluster's user.
    func pgBackRest(_ arguments: [String]) throws -> CommandRunner.Outcome {
        let program = Self.pgBackRestPath
        guard access(program, X_OK) == 0 else {
            throw BackupError(
                .unavailable, "pgbackrest is not installed", detail: "install it with deploy/install-deps.sh")
        }
        return try CommandRunner().run(
            program, ["--config=\(configurationFile)", "--stanza=\(BackupSettings.stanza)"] + arguments,
            asUser: account?.name, workingDirectory: cluster.home)
    }

    @discardableResult
    private func run(_ what: String, _ arguments: [String]) throws -> String {
        let outcome = try pgBackRest(arguments)
        guard outcome.status == 0 else { throw failure(what, outcome) }
        return outcome.output
    }

    /// A failed run as an error of the right kind.
    func failure(_ what: String, _ outcome: CommandRunner.Outcome) -> BackupError {
        classified(outcome)
            ?? BackupError(
                .unavailable, "\(what) failed (exit status \(outcome.status))", detail: tail(outcome.output))
    }

    /// A full disk or an unreadable (wrong passphrase) repository, told from pgBackRest's output.
    private func classified(_ outcome: CommandRunner.Outcome) -> BackupError? {
        let text = outcome.output
        let repository = settings()?.repository ?? ""
        // pgBackRest's console shortens some errors; its logs of the last runs say more (a
        // backup that waited for WAL the archiver could not push fails with error 82).
        let logs = ["backup", "archive-push"].map { lastRun(of: $0) }.joined(separator: "\n")
        if text.contains("No space left on device") || logs.contains("No space left on device")
            || (text.contains("unable to write") && Self.freeBytes(repository).map { $0 < Self.fullDiskBytes } == true)
        {
            return BackupError(
                .tryLater, "the repository's disk is full (\(repository))",
                detail: "free space there or expire old backups, then run it again; the cluster was not changed")
        }
        if outcome.status == 50 || text.contains("unable to acquire lock") {
            return BackupError(
                .tryLater, "another pgBackRest command (a backup, a restore) is running on this cluster",
                detail: "try again once it has ended")
        }
        let lower = text.lowercased()
        if lower.contains("cipher") || lower.contains("decrypt") || lower.contains("cryptoerror")
            || lower.contains("unable to load info file")
        {
            return unreadable(detail: tail(text, lines: 2))
        }
        return nil
    }

    /// Below this much free space (a WAL segment) a failed write counts as a full disk.
    static let fullDiskBytes: UInt64 = 16 << 20

    /// The space left to unprivileged users on the file system holding `path`.
    static func freeBytes(_ path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// The log of `command`'s last run (`<home>/backup/log/sleepledger-<command>.log`).
    private func lastRun(of command: String) -> String {
        let text = SmallFile.tail(atPath: folder + "/log/\(BackupSettings.stanza)-\(command).log", count: 16384) ?? ""
        guard let start = text.range(of: "PROCESS START", options: .backwards) else { return text }
        return String(text[start.upperBound...])
    }

    /// The repository does not read with the configured passphrase.
    private func unreadable(detail: String) -> BackupError {
        BackupError(
            .badInput,
            "the repository \(settings()?.repository ?? "") cannot be read: a wrong passphrase, or not this cluster's repository",
            detail: "use the passphrase `sleepledger db setup-backups` printed (\(detail))")
    }

    private func tail(_ text: String, lines: Int = 6) -> String {
        text.split(separator: "\n").suffix(lines).joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `shell` single-quoted.
    func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `seconds` as pgBackRest's and PostgreSQL's `YYYY-MM-DD HH:MM:SS.ffffff+00`.
    static func recoveryTime(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        let micros = Int(((seconds - whole) * 1_000_000).rounded())
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), min(micros, 999_999))
    }

    /// `seconds` as an ISO 8601 UTC timestamp.
    public static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
