import Foundation
import Glibc
public import LedgerServices
import LedgerStore

/// The upload server: HTTP on libmicrohttpd with the API routes (TLS when configured), a
/// pool of database sessions as the server's role, the spool folder, the import workers
/// and, on a listener of its own, the Prometheus metrics. `sleepledger serve` builds one
/// from its configuration, starts it and stops it on SIGTERM.
public final class SleepLedgerServer: @unchecked Sendable {
    /// The settings.
    public let configuration: ServerConfiguration
    private let database: LedgerDatabase
    private let serverURL: String?
    private let readURL: String?
    private let importOptions: ImportService.Options
    private let log: @Sendable (String) -> Void
    private let stopping = NSLock()
    private var isStopping = false
    private var http: MicroHTTPDServer?
    private var metricsHTTP: MicroHTTPDServer?
    private var pool: SessionPool?
    private var replica: ReplicaReads?
    private var workers: ImportWorkers?
    private var routes: ServerRoutes?

    /// What the server measures, shown on the metrics listener.
    public let metrics: ServerMetrics
    /// The port of the metrics listener once started (the picked one for port 0); `nil`
    /// when it is off or not started.
    public private(set) var metricsPort: UInt16?

    /// The address people use (with the picked port when the server listens on port 0).
    public var publicURL: String { routes?.publicURL ?? configuration.effectivePublicURL }

    /// A server over `database`, connecting as the server's role (`serverURL` verbatim
    /// when given; `readURL`, when given, a replica for the reads of a person's results),
    /// importing with `importOptions`, writing its log lines to `log`; `version` is the
    /// release its metrics report.
    public init(
        configuration: ServerConfiguration, database: LedgerDatabase, serverURL: String?, readURL: String? = nil,
        importOptions: ImportService.Options = .init(), version: String = "unknown",
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.database = database
        self.serverURL = serverURL
        self.readURL = readURL
        self.importOptions = importOptions
        self.log = log
        metrics = ServerMetrics(version: version, startTime: Date().timeIntervalSince1970)
    }

    /// Checks the configuration, the TLS files and the database, prepares the spool
    /// folder (removing what a crash left behind), starts the workers and listens (the
    /// metrics listener first). Returns the API's port.
    public func start() throws(ServiceError) -> UInt16 {
        let problems = configuration.problems()
        guard problems.isEmpty else { throw ServiceError(.invalidInput, problems.joined(separator: "; ")) }
        var tls: TLSCredentials?
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            tls = try TLSCredentials.load(certificatePath: certificate, keyPath: key)
        }
        let spool = configuration.spool
        try spool.prepare()
        // The embedded default: started, migrated and with its roles, once.
        if database.embeddedHome != nil { try database.startCluster() }
        // Accounts a restore brought back go again, before anyone can reach them.
        for removed in try database.reapplyDeletions() { log(LedgerDatabase.logLine(removed)) }
        let database = database
        let serverURL = serverURL
        let openSession: @Sendable () throws -> LedgerSession = { try database.openAsServer(serverURL: serverURL) }
        // Fails now, with the reason, when the database or the server's role is not there.
        let first = try database.openAsServer(serverURL: serverURL)
        let host = configuration.hostName
        let swept = try ImportQueue(session: first, host: host).sweep(
            spool,
            // On a folder shared by several hosts a lock may not reach across them: age too.
            minimumAgeSeconds: configuration.isSpoolShared ? Double(configuration.idleTimeoutSeconds * 2) : 0)
        first.close()
        if swept > 0 { log("removed \(swept) spool files no job needs") }

        raiseOpenFileLimit()
        let pool = SessionPool(capacity: configuration.databaseSessions, open: openSession)
        self.pool = pool
        if let readURL {
            // Fails now, with the reason, when the replica or the role is not there.
            try database.openAsServer(serverURL: readURL).close()
            replica = ReplicaReads(
                sessions: SessionPool(capacity: configuration.databaseSessions) {
                    try database.openAsServer(serverURL: readURL)
                })
        }
        let log = log
        let metrics = metrics
        let workers = ImportWorkers(
            count: configuration.workers, host: host, isSpoolShared: configuration.isSpoolShared,
            options: importOptions, database: database, sessions: pool, metrics: metrics, log: log)
        self.workers = workers
        let routes = ServerRoutes(
            configuration: configuration, database: database, pool: pool, replica: replica,
            now: { Int64(Date().timeIntervalSince1970) }, onQueued: { workers.wake() },
            isStopping: { [weak self] in self?.stoppingNow ?? true }, log: log)
        self.routes = routes
        let http = MicroHTTPDServer(routes: routes, tls: tls, metrics: metrics, log: log)
        if let host = configuration.metricsHost {
            let scrape = MetricsRoutes { [weak self] in self?.scrape() ?? [] }
            let metricsHTTP = MicroHTTPDServer(
                listener: .metrics(host: host, port: configuration.metricsPort),
                route: { RoutedRequest(plan: scrape.plan($0), template: nil) },
                log: nil)
            metricsPort = try metricsHTTP.start()
            self.metricsHTTP = metricsHTTP
        }
        let port: UInt16
        do {
            port = try http.start()
        } catch {
            metricsHTTP?.stop()
            throw error
        }
        if configuration.port == 0, configuration.publicURL.isEmpty {
            routes.publicURL =
                "\(configuration.isTLS ? "https" : "http")://\(ServerConfiguration.urlHost(configuration.host)):\(port)"
        }
        self.http = http
        workers.start()
        return port
    }

    /// Raises the soft open-file limit to what the connection limit needs (each connection
    /// a socket, plus database sessions, spool files and the log), up to the hard limit;
    /// logs when even that is short.
    private func raiseOpenFileLimit() {
        let needed = rlim_t(configuration.maximumConnections + configuration.databaseSessions + 256)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < needed else { return }
        limit.rlim_cur = min(needed, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < needed {
            log(
                "the open-file limit (\(limit.rlim_cur)) is below the \(needed) that --max-connections "
                    + "\(configuration.maximumConnections) needs; raise it (LimitNOFILE, ulimit -n)")
        }
    }

    /// Every metric for one scrape: what was recorded, and the queue (read through the
    /// pool, as the server's role, by migration 0012's counting function), the pool and
    /// the workers as they are now.
    func scrape() -> [MetricFamily] {
        let queue = try? routes?.server.uploads.statistics(timeout: 2)
        let usage = pool?.usage ?? (open: 0, inUse: 0)
        var live = ServerMetrics.Live(
            queue: queue, poolInUse: usage.inUse, poolOpen: usage.open, poolCapacity: pool?.capacity ?? 0,
            requestsInFlight: http?.requestsInFlight ?? 0, openConnections: http?.openConnections ?? 0,
            workers: workers?.threadCount ?? 0,
            busyWorkers: workers?.busyCount ?? 0)
        let losses = [pool, replica?.sessions].compactMap { $0?.losses }
        live.databaseSessionsLost = losses.reduce(0) { $0 + $1.lost }
        live.databaseReconnects = losses.reduce(0) { $0 + $1.reconnected }
        live.hasReplica = replica != nil
        live.replicaLagSeconds = replica?.lagSeconds()
        live.backups = database.backupHealth()
        return metrics.families(live: live)
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
        metricsHTTP?.stop()
        pool?.close()
        replica?.sessions.close()
    }
}
