public import EmbeddedPostgres
import Foundation
import Glibc
import LedgerStore
public import PostgresClient
import Synchronization

/// Throwaway PostgreSQL databases for tests.
///
/// Once per test process the server is chosen: `SLEEPLEDGER_TEST_DATABASE_URL` (a
/// superuser connection string to a throwaway cluster, as `deploy/test.sh` provides) when
/// set, otherwise an ``EmbeddedCluster`` started in a fresh temporary folder and stopped
/// when the process exits. Every ``fresh()`` call then creates a new, uniquely named,
/// empty database, so tests running in parallel never share one.
public enum TestDatabase {
    /// The repository's `migrations/` folder, found from this file's path.
    public static let migrationsFolder: String = {
        let file = URL(fileURLWithPath: #filePath)
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations").path
    }()

    /// The repository root (the folder holding `Package.swift`).
    public static let repositoryRoot: String = (migrationsFolder as NSString).deletingLastPathComponent

    /// The shared server: a superuser connection string to its `postgres` database, and the
    /// embedded cluster when one was started for this process.
    public struct Server: Sendable {
        /// Superuser conninfo to the maintenance database `postgres`.
        public let maintenanceConninfo: String
        /// Builds the conninfo for another database of the same server.
        public let conninfoForDatabase: @Sendable (String) -> String
        /// The cluster started for this process, if any.
        public let cluster: EmbeddedCluster?
    }

    private static let startup: Result<Server, ClusterError> = {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["SLEEPLEDGER_TEST_DATABASE_URL"], !url.isEmpty {
            return .success(
                Server(
                    maintenanceConninfo: withDatabase(url, "postgres"),
                    conninfoForDatabase: { withDatabase(url, $0) }, cluster: nil))
        }
        do {
            var template = Array("/tmp/sleepledger-test-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else {
                return .failure(ClusterError("mkdtemp failed: \(String(cString: strerror(errno)))"))
            }
            let home = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
            // The service user (when running as root) must be able to enter the folder.
            chmod(home, 0o755)
            let cluster = EmbeddedCluster(home: home, isDurable: false)
            try cluster.start()
            clusterHomeForExit.withLock { $0 = home }
            atexit { TestDatabase.stopAtExit() }
            return .success(
                Server(
                    maintenanceConninfo: cluster.conninfo(database: "postgres"),
                    conninfoForDatabase: { cluster.conninfo(database: $0) }, cluster: cluster))
        } catch let error as ClusterError {
            return .failure(error)
        } catch {
            return .failure(ClusterError("\(error)"))
        }
    }()

    private static let clusterHomeForExit = Mutex<String?>(nil)
    private static let counter = Atomic<Int>(0)
    private static let rolesApplied = Mutex<Bool>(false)

    /// The shared server, starting it on first use.
    public static func server() throws -> Server { try startup.get() }

    /// A superuser connection string to database `name` of the shared server.
    public static func conninfo(database name: String) throws -> String {
        try server().conninfoForDatabase(name)
    }

    /// Creates a new empty database and returns its superuser conninfo and name.
    public static func fresh() throws -> (conninfo: String, name: String) {
        let server = try server()
        let number = counter.add(1, ordering: .relaxed).newValue
        let name = "sleepledger_test_\(getpid())_\(number)_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try Connection(conninfo: server.maintenanceConninfo)
        defer { connection.close() }
        try connection.execute("CREATE DATABASE \(try connection.quoteIdentifier(name))", name: "test.createDatabase")
        return (server.conninfoForDatabase(name), name)
    }

    /// Creates a new database with every migration applied, then the roles
    /// (`deploy/postgres/roles.sql`), as `sleepledger migrate` does.
    public static func migrated() throws -> (conninfo: String, name: String) {
        let database = try fresh()
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let migrator = try Migrator(folder: migrationsFolder)
        try migrator.migrate(on: connection)
        try applyRoles(on: connection)
        return database
    }

    /// Applies the roles script, one test at a time: `CREATE ROLE` and `ALTER ROLE` touch
    /// cluster-wide catalogs, where concurrent runs can collide.
    public static func applyRoles(on connection: Connection) throws {
        let script = try DatabaseRoles.script(migrationsFolder: migrationsFolder)
        try rolesApplied.withLock { _ in try DatabaseRoles.apply(on: connection, script: script) }
    }

    /// Drops a database made by ``fresh()`` (ending its sessions first).
    public static func drop(_ name: String) throws {
        let connection = try Connection(conninfo: try server().maintenanceConninfo)
        defer { connection.close() }
        try connection.execute(
            "DROP DATABASE IF EXISTS \(try connection.quoteIdentifier(name)) WITH (FORCE)", name: "test.dropDatabase")
    }

    /// Replaces the database of a conninfo or URL, keeping everything else.
    static func withDatabase(_ conninfo: String, _ database: String) -> String {
        (try? ConnectionString.settingParameter("dbname", to: database, in: conninfo))
            ?? conninfo + " dbname=" + ConnectionString.conninfoValue(database)
    }

    /// Fast shutdown of the process's cluster, then removal of its folder. Runs from
    /// `atexit`, so it only signals and polls instead of spawning pg_ctl.
    private static func stopAtExit() {
        guard let home = clusterHomeForExit.withLock({ $0 }) else { return }
        if let text = readSmallFile(home + "/data/postmaster.pid"),
            let first = text.split(separator: "\n").first, let pid = Int32(first)
        {
            kill(pid, SIGINT)
            // Wait for it to exit (a zombie counts: its parent is not this process).
            for _ in 0..<200 where kill(pid, 0) == 0 {
                if readSmallFile("/proc/\(pid)/stat")?.contains(") Z ") ?? true { break }
                usleep(25_000)
            }
        }
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Reads a small file with `read(2)` (Foundation leaks its buffer on size-0 `/proc` files).
    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
