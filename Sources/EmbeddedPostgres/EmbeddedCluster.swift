import Foundation
import Glibc
import PostgresClient

/// A private PostgreSQL cluster kept in a data folder (``home``), reachable only through a
/// Unix socket in `<home>/run` (no TCP), for single-machine use without a database server
/// to administer.
///
/// Layout of ``home``:
/// - `cluster.lock`: `flock`ed while initdb, start and stop run, so concurrent processes
///   serialise instead of corrupting the cluster;
/// - `data/`: the cluster (`PGDATA`), created by `initdb` on first start;
/// - `run/`: the socket folder, mode 0700;
/// - `log/postgres.log`: the server log.
///
/// Authentication is `trust` for local (socket) connections and `reject` for TCP. That is
/// safe because the socket folder is 0700: only its owner (and root) can reach the socket.
///
/// As root, initdb and postgres run as the unprivileged system user ``serviceUser``
/// (created with `useradd --system` when missing) through `runuser`, and `data`, `run`
/// and `log` belong to it. Every folder above ``home`` must be traversable by that user.
///
/// Nothing is started, stopped or connected to in a data folder that someone else could
/// change: ``checkFolders()`` (run by ``start()`` and ``stop()``, and by callers before
/// they connect) refuses a home, `run/`, `data/` or `log/` (or a folder above) that
/// belongs to the wrong user or that others may write, naming the folder and the fix
/// (``DataFolderRules``).
public struct EmbeddedCluster: Sendable {
    /// Whether and how the cluster runs.
    public enum Status: Sendable, Equatable {
        /// `data/PG_VERSION` does not exist: the first ``EmbeddedCluster/start()`` runs initdb.
        case notInitialized
        /// Initialised, no server running.
        case stopped
        /// A postmaster with this process id serves the cluster.
        case running(pid: Int32)
    }

    /// The data folder.
    public let home: String
    /// The system user that runs the server when the tool runs as root; also the name of
    /// the cluster's superuser role. Default `sleepledger`.
    public let serviceUser: String
    /// The database created on first start and named by ``conninfo(database:)``. Default `sleepledger`.
    public let databaseName: String
    /// Whether the cluster syncs to disk (`fsync`, initdb without `--no-sync`). Default
    /// `true`; throwaway test clusters turn it off for speed.
    public let isDurable: Bool
    /// The port number in the socket's name (`.s.PGSQL.<port>`); no TCP port is opened.
    public static let port = 5432
    /// The data folder used by root when none is configured.
    public static let systemHome = "/var/lib/sleepledger"
    /// Longest Unix socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
    public static let maximumSocketPathLength = 107

    /// Creates a handle on the cluster in `home`; nothing happens until ``start()``.
    public init(
        home: String, serviceUser: String = "sleepledger", databaseName: String = "sleepledger", isDurable: Bool = true
    ) {
        var home = home
        while home.count > 1, home.hasSuffix("/") { home.removeLast() }
        self.home = home
        self.serviceUser = serviceUser
        self.databaseName = databaseName
        self.isDurable = isDurable
    }

    /// `<home>/data`.
    public var dataFolder: String { home + "/data" }
    /// `<home>/run`, holding the socket.
    public var socketFolder: String { home + "/run" }
    /// `<home>/log/postgres.log`.
    public var logFile: String { home + "/log/postgres.log" }
    /// The socket path `<home>/run/.s.PGSQL.5432`.
    public var socketPath: String { socketFolder + "/.s.PGSQL.\(EmbeddedCluster.port)" }
    private var lockFile: String { home + "/cluster.lock" }
    private var pidFile: String { dataFolder + "/postmaster.pid" }

    /// The libpq connection string for `database` (default ``databaseName``) as the superuser.
    public func conninfo(database: String? = nil) -> String {
        "host=\(ConnectionString.conninfoValue(socketFolder)) port=\(EmbeddedCluster.port) "
            + "dbname=\(ConnectionString.conninfoValue(database ?? databaseName)) "
            + "user=\(ConnectionString.conninfoValue(serviceUser))"
    }

    /// The same connection as a `postgresql://` URL, the socket folder percent-encoded as
    /// the host (`postgresql://sleepledger@%2Fvar%2Flib%2Fsleepledger%2Frun:5432/sleepledger`).
    public func url(database: String? = nil) -> String {
        func encoded(_ text: String) -> String {
            var result = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    result.append(Character(UnicodeScalar(byte)))
                default:
                    let hex = Array("0123456789ABCDEF")
                    result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0f)])
                }
            }
            return result
        }
        return "postgresql://\(encoded(serviceUser))@\(encoded(socketFolder)):\(EmbeddedCluster.port)/"
            + encoded(database ?? databaseName)
    }

    static var isRoot: Bool { geteuid() == 0 }

    // MARK: Start, stop, status

    /// Starts the cluster, creating it (initdb, then the database) on first use, and
    /// returns ``conninfo(database:)``. Already running: returns at once. A stale
    /// `postmaster.pid` (dead process, or a live process that is not this cluster's
    /// postmaster) is removed first.
    @discardableResult
    public func start() throws -> String {
        try validateHome()
        let runner = CommandRunner()
        let account = EmbeddedCluster.isRoot ? try ServiceAccount.ensure(serviceUser, runner: runner) : nil
        let rules = folderRules(account: account)
        // Check the folders that exist before creating anything, then the created ones.
        try rules.check(home: home)
        if let account { try checkReachable(by: account, runner: runner) }
        try createFolder(home, mode: 0o755, owner: nil)
        if let account { try checkReachable(by: account, runner: runner) }
        let lock = try ClusterLock(path: lockFile)
        defer { lock.release() }
        try rules.check(home: home)

        try createFolder(socketFolder, mode: 0o700, owner: account)
        try createFolder(home + "/log", mode: 0o700, owner: account)
        let binaries = try PostgresBinaries.locate()
        if !FileManager.default.fileExists(atPath: dataFolder + "/PG_VERSION") {
            // A lost data folder of a backed-up cluster is restored, never silently replaced.
            if ClusterBackups(cluster: self).settings() != nil {
                throw ClusterError(
                    "\(dataFolder) holds no cluster, but backups of it are set up",
                    detail: "restore it with `sleepledger db restore --latest` (or --to TIME); "
                        + "to start an empty cluster instead, move \(home)/backup away first")
            }
            try initialize(binaries: binaries, account: account, runner: runner)
        }
        try writeServerSettings(account: account)
        // What exists now, created here or found, before the server starts or is used.
        try rules.check(home: home)
        if case .running = currentStatus() {
            // Already served by a postmaster of ours.
        } else {
            try removeStaleServerState()
            do {
                try runner.check(
                    "pg_ctl start (see \(logFile))", binaries.pgCtl,
                    ["start", "-w", "-t", "120", "-s", "-D", dataFolder, "-l", logFile],
                    asUser: account?.name, workingDirectory: home)
            } catch var error as ClusterError {
                // The reason is usually in the server log: quote its last lines.
                let logTail = (SmallFile.tail(atPath: logFile) ?? "").split(separator: "\n").suffix(8)
                    .joined(separator: "\n")
                if !logTail.isEmpty {
                    error.detail = [error.detail, logTail].compactMap { $0 }.joined(separator: "\n")
                }
                throw error
            }
        }
        try createDatabaseIfMissing()
        if ClusterBackups(cluster: self).settings() != nil { try ClusterBackups(cluster: self).wakeCheckpointer() }
        return conninfo()
    }

    /// Stops the server (fast shutdown: sessions are ended, then a clean checkpoint).
    /// Does nothing when it is not running; clears a stale pid file.
    public func stop() throws {
        guard FileManager.default.fileExists(atPath: dataFolder + "/PG_VERSION") else { return }
        try checkFolders()
        let lock = try ClusterLock(path: lockFile)
        defer { lock.release() }
        guard case .running = currentStatus() else {
            try removeStaleServerState()
            return
        }
        let binaries = try PostgresBinaries.locate()
        let account = EmbeddedCluster.isRoot ? ServiceAccount.lookup(serviceUser) : nil
        try CommandRunner().check(
            "pg_ctl stop", binaries.pgCtl, ["stop", "-w", "-t", "120", "-s", "-m", "fast", "-D", dataFolder],
            asUser: account?.name, workingDirectory: home)
    }

    /// Whether the cluster exists and runs (reads `postmaster.pid` and `/proc`; takes no lock).
    public func status() -> Status { currentStatus() }

    private func currentStatus() -> Status {
        guard FileManager.default.fileExists(atPath: dataFolder + "/PG_VERSION") else { return .notInitialized }
        guard let pid = postmasterPID(), isOurPostgres(pid) else { return .stopped }
        return .running(pid: pid)
    }

    // MARK: Checks

    /// Throws a ``ClusterError`` naming the folder and the fix (`chown`, `chmod`) when the
    /// home, a folder above it, `run/`, `data/` or `log/` belongs to the wrong user or may
    /// be written by others (the rules of ``DataFolderRules``); starts and creates
    /// nothing. Run it before connecting to a cluster this process did not just start.
    public func checkFolders() throws {
        try validateHome()
        let account = EmbeddedCluster.isRoot ? ServiceAccount.lookup(serviceUser) : nil
        try folderRules(account: account).check(home: home)
    }

    /// The folder rules for this process: as root the server runs as the service user
    /// (who, when it does not exist yet, owns nothing).
    private func folderRules(account: ServiceAccount?) -> DataFolderRules {
        guard EmbeddedCluster.isRoot else { return DataFolderRules(serviceAccount: nil) }
        if let account { return DataFolderRules(serviceAccount: account) }
        return DataFolderRules(
            invoking: DataFolderRules.Owner(uid: 0, name: "root"),
            server: DataFolderRules.Owner(uid: uid_t.max, name: serviceUser))
    }

    private func validateHome() throws {
        guard home.hasPrefix("/") else {
            throw ClusterError("the data folder must be an absolute path: \(home)")
        }
        if home.contains("\"") || home.contains("\n") || home.contains(",") || home.contains("\r") {
            throw ClusterError(
                "the data folder \(home) contains a quote, comma or newline, which PostgreSQL's socket settings cannot hold",
                detail: "choose another SLEEPLEDGER_HOME")
        }
        let length = socketPath.utf8.count
        guard length <= EmbeddedCluster.maximumSocketPathLength else {
            throw ClusterError(
                "the data folder path is too long: the socket \(socketPath) would be \(length) bytes, the limit is \(EmbeddedCluster.maximumSocketPathLength)",
                detail:
                    "choose a SLEEPLEDGER_HOME of at most \(EmbeddedCluster.maximumSocketPathLength - length + home.utf8.count) bytes"
            )
        }
    }

    /// Every folder from `/` down to ``home`` must be searchable by the service user.
    private func checkReachable(by account: ServiceAccount, runner: CommandRunner) throws {
        var folder = ""
        var folders = ["/"]
        for component in home.split(separator: "/") {
            folder += "/" + component
            folders.append(folder)
        }
        for folder in folders where FileManager.default.fileExists(atPath: folder) && !account.canTraverse(folder) {
            // Permission bits say no; ask the system, which also honours ACLs.
            let confirmed = try runner.run(
                "/usr/bin/test", ["-x", folder], asUser: account.name, workingDirectory: "/")
            if confirmed.status == 0 { continue }
            throw ClusterError(
                "the service user \(account.name) cannot reach the data folder \(home): it cannot enter \(folder)",
                detail:
                    "choose a SLEEPLEDGER_HOME the user can reach (the default for root is \(EmbeddedCluster.systemHome)), "
                    + "or allow it to pass through with `chmod o+x \(folder)` or `setfacl -m u:\(account.name):x \(folder)`"
            )
        }
    }

    /// Creates `path` and missing parents (parents 0755, `path` with `mode`), handing the
    /// folder it creates for the cluster to `owner`. Existing folders are left alone (the
    /// folder check judges them). A folder for `owner` is made under a temporary name, given
    /// its mode and owner through a descriptor opened without following links, and renamed
    /// into place, so no check (of another process, or before the lock) ever sees it with
    /// the wrong owner.
    func createFolder(_ path: String, mode: mode_t, owner: ServiceAccount?) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ClusterError("\(path) exists and is not a folder")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path, !parent.isEmpty { try createFolder(parent, mode: 0o755, owner: nil) }
        let made = owner == nil ? path : path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if mkdir(made, mode) != 0 {
            // Made by another process meanwhile: left to the folder check like any other.
            if errno == EEXIST, made == path { return }
            throw ClusterError("cannot create \(made): \(String(cString: strerror(errno)))")
        }
        do {
            let descriptor = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ClusterError("cannot open \(made) after creating it: \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            fchmod(descriptor, mode)
            if let owner, fchown(descriptor, owner.uid, owner.gid) != 0 {
                throw ClusterError("cannot give \(made) to \(owner.name): \(String(cString: strerror(errno)))")
            }
        } catch {
            if made != path { rmdir(made) }
            throw error
        }
        guard made != path else { return }
        if rename(made, path) != 0 {
            let code = errno
            rmdir(made)
            // Made by another process meanwhile: left to the folder check like any other.
            if code == EEXIST || code == ENOTEMPTY { return }
            throw ClusterError("cannot rename \(made) to \(path): \(String(cString: strerror(code)))")
        }
    }

    // MARK: initdb

    private func initialize(binaries: PostgresBinaries, account: ServiceAccount?, runner: CommandRunner) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: dataFolder, isDirectory: &isDirectory) {
            let contents = (try? fileManager.contentsOfDirectory(atPath: dataFolder)) ?? []
            guard isDirectory.boolValue, contents.isEmpty else {
                throw ClusterError(
                    "\(dataFolder) exists but holds no PostgreSQL cluster (no PG_VERSION)",
                    detail: "move it away or choose another SLEEPLEDGER_HOME")
            }
            try fileManager.removeItem(atPath: dataFolder)
        }
        // initdb into a scratch folder and rename, so a crash never leaves a half cluster at data/.
        let scratch = home + "/data.initdb"
        if fileManager.fileExists(atPath: scratch) { try fileManager.removeItem(atPath: scratch) }
        try createFolder(scratch, mode: 0o700, owner: account)
        var arguments = [
            "-D", scratch, "-U", serviceUser, "-E", "UTF8", "--locale=C",
            "--auth-local=trust", "--auth-host=reject",
        ]
        if !isDurable { arguments.append("--no-sync") }
        try runner.check("initdb", binaries.initdb, arguments, asUser: account?.name, workingDirectory: home)
        let configuration = scratch + "/postgresql.conf"
        let include =
            "\n# Added by SleepLedger: socket-only settings for this data folder.\ninclude_if_exists = 'sleepledger.conf'\n"
        // Appended without following links: the folder belongs to the service user.
        let descriptor = open(configuration, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ClusterError("cannot append to \(configuration): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try Self.writeAll(Array(include.utf8), to: descriptor, path: configuration)
        if rename(scratch, dataFolder) != 0 {
            throw ClusterError("cannot rename \(scratch) to \(dataFolder): \(String(cString: strerror(errno)))")
        }
    }

    /// Rewrites `data/sleepledger.conf` on every start, so a moved data folder still works.
    private func writeServerSettings(account: ServiceAccount?) throws {
        func quoted(_ value: String) -> String {
            "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
        }
        var lines = [
            "# Written by SleepLedger on every start; edit postgresql.conf instead.",
            "listen_addresses = ''",
            "port = \(EmbeddedCluster.port)",
            "unix_socket_directories = \(quoted("\"" + socketFolder + "\""))",
            "unix_socket_permissions = 0700",
        ]
        if !isDurable {
            lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        }
        let backups = ClusterBackups(cluster: self)
        if let settings = backups.settings() {
            // Continuous archiving to the pgBackRest repository (docs/operations.md, "Backups").
            let command =
                "\(backups.shellQuoted(ClusterBackups.pgBackRestPath)) --config=\(backups.shellQuoted(backups.configurationFile)) "
                + "--stanza=\(BackupSettings.stanza) archive-push %p"
            lines += [
                "archive_mode = on",
                "archive_command = \(quoted(command))",
                "archive_timeout = \(settings.archiveTimeoutSeconds)",
                "wal_level = replica",
            ]
        }
        try writeOwnedFile(dataFolder + "/sleepledger.conf", lines.joined(separator: "\n") + "\n", account: account)
    }

    /// Writes `text` to `path` as a new file (never following a link the folder's owner may
    /// have put there), mode 0600, owned by `account` when given, then renamed over the old one.
    func writeOwnedFile(_ path: String, _ text: String, account: ServiceAccount?, mode: mode_t = 0o600) throws {
        let scratch = path + ".new"
        unlink(scratch)
        let descriptor = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw ClusterError("cannot write \(scratch): \(String(cString: strerror(errno)))")
        }
        do {
            defer { close(descriptor) }
            if let account, fchown(descriptor, account.uid, account.gid) != 0 {
                throw ClusterError("cannot give \(scratch) to \(account.name): \(String(cString: strerror(errno)))")
            }
            try Self.writeAll(Array(text.utf8), to: descriptor, path: scratch)
            guard fsync(descriptor) == 0 else {
                throw ClusterError("cannot sync \(scratch): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(scratch)
            throw error
        }
        if rename(scratch, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(scratch)
            throw ClusterError("cannot rename \(scratch) to \(path): \(reason)")
        }
    }

    /// Writes every byte of `bytes` to `descriptor`.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ClusterError("cannot write \(path): \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    // MARK: Stale state after a crash

    private func postmasterPID() -> Int32? {
        guard let text = SmallFile.text(atPath: pidFile),
            let first = text.split(separator: "\n", omittingEmptySubsequences: false).first
        else { return nil }
        return Int32(first.trimmingCharacters(in: .whitespaces))
    }

    /// Whether `pid` is a live postgres process working in this cluster's data folder
    /// (`/proc/<pid>/cwd` is the data folder; the postmaster and its children chdir there).
    private func isOurPostgres(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let commandLine = SmallFile.bytes(atPath: "/proc/\(pid)/cmdline"), !commandLine.isEmpty
        else { return false }
        let program = String(decoding: commandLine.prefix { $0 != 0 }, as: UTF8.self)
        let name = program.split(separator: "/").last.map(String.init) ?? program
        guard name.hasPrefix("postgres") else { return false }
        let data = (dataFolder as NSString).resolvingSymlinksInPath
        if let directory = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") {
            return directory == data || directory == dataFolder
        }
        let arguments = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains(dataFolder) || arguments.contains(data)
    }

    /// Removes a pid file (and socket lock file) that names no postmaster of ours, after
    /// ending orphaned children of a killed postmaster that still hold its shared memory.
    private func removeStaleServerState() throws {
        let fileManager = FileManager.default
        if let pid = postmasterPID(), isOurPostgres(pid) { return }
        let orphans = postgresProcessesInDataFolder()
        if !orphans.isEmpty {
            for pid in orphans { kill(pid, SIGQUIT) }
            if !waitForExit(orphans, seconds: 10) {
                for pid in orphans { kill(pid, SIGKILL) }
                _ = waitForExit(orphans, seconds: 5)
            }
        }
        if fileManager.fileExists(atPath: pidFile) { try? fileManager.removeItem(atPath: pidFile) }
        let socketLock = socketPath + ".lock"
        if let text = SmallFile.text(atPath: socketLock),
            let first = text.split(separator: "\n").first, let pid = Int32(first.trimmingCharacters(in: .whitespaces)),
            !isOurPostgres(pid)
        {
            try? fileManager.removeItem(atPath: socketLock)
        }
    }

    private func postgresProcessesInDataFolder() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { $0 != getpid() && isOurPostgres($0) }
    }

    private func waitForExit(_ pids: [Int32], seconds: Int) -> Bool {
        for _ in 0..<(seconds * 20) {
            if pids.allSatisfy({ !isOurPostgres($0) }) { return true }
            usleep(50_000)
        }
        return pids.allSatisfy { !isOurPostgres($0) }
    }

    // MARK: Database

    private func createDatabaseIfMissing() throws {
        let connection = try Connection(conninfo: conninfo(database: "postgres"))
        defer { connection.close() }
        let existing = try connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = $1", [.text(databaseName)], name: "cluster.findDatabase")
        if existing.rows.isEmpty {
            try connection.execute(
                "CREATE DATABASE \(try connection.quoteIdentifier(databaseName))", name: "cluster.createDatabase")
        }
    }
}
