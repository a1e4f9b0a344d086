import Foundation
import Glibc
public import LedgerServices
import LedgerStore

/// The upload server: HTTP on libmicrohttpd with the API routes, a pool of database
/// sessions as the server's role, the spool folder and the import workers. `sleepledger
/// serve` builds one from its configuration, starts it and stops it on SIGTERM.
public final class SleepLedgerServer: @unchecked Sendable {
    /// The settings.
    public let configuration: ServerConfiguration
    private let database: LedgerDatabase
    private let serverURL: String?
    private let importOptions: ImportService.Options
    private let log: @Sendable (String) -> Void
    private let stopping = NSLock()
    private var isStopping = false
    private var http: MicroHTTPDServer?
    private var pool: SessionPool?
    private var workers: ImportWorkers?
    private var routes: ServerRoutes?

    /// The address people use (with the picked port when the server listens on port 0).
    public var publicURL: String { routes?.publicURL ?? configuration.effectivePublicURL }

    /// A server over `database`, connecting as the server's role (`serverURL` verbatim
    /// when given), importing with `importOptions`, writing its log lines to `log`.
    public init(
        configuration: ServerConfiguration, database: LedgerDatabase, serverURL: String?,
        importOptions: ImportService.Options = .init(), log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.database = database
        self.serverURL = serverURL
        self.importOptions = importOptions
        self.log = log
    }

    /// Checks the configuration and the database, prepares the spool folder (removing
    /// what a crash left behind), starts the workers and listens. Returns the port.
    public func start() throws(ServiceError) -> UInt16 {
        let problems = configuration.problems()
        guard problems.isEmpty else { throw ServiceError(.invalidInput, problems.joined(separator: "; ")) }
        try prepareSpoolFolder()
        // The embedded default: started, migrated and with its roles, once.
        if database.embeddedHome != nil { try database.startCluster() }
        let database = database
        let serverURL = serverURL
        let openSession: @Sendable () throws -> LedgerSession = { try database.openAsServer(serverURL: serverURL) }
        // Fails now, with the reason, when the database or the server's role is not there.
        let first = try database.openAsServer(serverURL: serverURL)
        let host = configuration.hostName
        let swept = try ImportQueue(session: first, host: host).sweep(
            spoolFolder: configuration.spoolFolder, minimumAgeSeconds: Double(configuration.idleTimeoutSeconds * 2))
        first.close()
        if swept > 0 { log("removed \(swept) spool files no job needs") }

        let pool = SessionPool(capacity: configuration.maximumConnections, open: openSession)
        self.pool = pool
        let log = log
        let workers = ImportWorkers(
            count: configuration.workers, host: host, isSpoolShared: configuration.isSpoolShared,
            options: importOptions, openSession: openSession,
            afterImport: { job in
                // The user's summary is fresh seconds after the upload; the nightly
                // rollup stays. It runs as the rollup always does (docs/operations.md).
                do {
                    try RollupService(database: database, settings: RollupSettings(userID: job.userID)).run(
                        now: Int64(Date().timeIntervalSince1970))
                } catch {
                    log("rollup after import job \(job.id): \(error)")
                }
            }, log: log)
        self.workers = workers
        let routes = ServerRoutes(
            configuration: configuration, database: database, pool: pool,
            now: { Int64(Date().timeIntervalSince1970) }, onQueued: { workers.wake() },
            isStopping: { [weak self] in self?.stoppingNow ?? true })
        self.routes = routes
        let http = MicroHTTPDServer(routes: routes, log: log)
        let port = try http.start()
        if configuration.port == 0, configuration.publicURL.isEmpty {
            routes.publicURL = "http://\(configuration.host):\(port)"
        }
        self.http = http
        workers.start()
        return port
    }

    private var stoppingNow: Bool {
        stopping.lock()
        defer { stopping.unlock() }
        return isStopping
    }

    /// Stops gracefully: no new connections, uploads already running may finish until
    /// the deadline (new uploads get 503), then every connection closes; workers finish
    /// their current job and leave queued jobs queued.
    public func stop() {
        stopping.lock()
        isStopping = true
        stopping.unlock()
        http?.quiesce()
        let deadline = Double(configuration.stopDeadlineSeconds)
        if let http, !http.waitForRequests(seconds: deadline) {
            log("stopping: requests still running after \(configuration.stopDeadlineSeconds) s are closed")
        }
        http?.stop()
        workers?.stop(waitingUpTo: deadline)
        pool?.close()
    }

    private func prepareSpoolFolder() throws(ServiceError) {
        let folder = configuration.spoolFolder
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ServiceError(.unavailable, "cannot create the spool folder \(folder)")
            }
        } else if !isDirectory.boolValue {
            throw ServiceError(.unavailable, "the spool folder \(folder) is not a folder")
        }
        // Uploads are people's data: only the server's user may read them.
        guard chmod(folder, 0o700) == 0 else {
            throw ServiceError(.unavailable, "cannot make the spool folder \(folder) private (chmod 700)")
        }
    }
}
