public import LedgerReadServices
public import LedgerServices
public import LedgerStore

/// What the upload server measures (docs/operations.md, "Metrics"): requests by route
/// template, method and status with their durations, upload bytes, import jobs by
/// outcome with their durations, rollups after imports; and, read at each scrape, the
/// queue, the session pool and the requests in flight. Recorded by the libmicrohttpd
/// adapter after each response and by the workers after each job; rendered by
/// ``PrometheusText``.
public final class ServerMetrics: Sendable {
    /// HTTP requests answered on the main listener.
    public static let requests = MetricsRegistry.Metric.counter(
        "sleepledger_http_requests_total",
        help: "HTTP requests on the main listener by route template, method and status (none: no answer was sent)",
        labels: ["route", "method", "status"])
    /// How long requests took, head to end.
    public static let requestDuration = MetricsRegistry.Metric.histogram(
        "sleepledger_http_request_duration_seconds",
        help: "Time from a request's head to its end, uploads included, by route template", labels: ["route"],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300])
    /// Body bytes of upload routes.
    public static let uploadBytes = MetricsRegistry.Metric.counter(
        "sleepledger_http_upload_bytes_total",
        help: "Body bytes received on upload routes, kept or not, by route template", labels: ["route"])
    /// Connections the connection watch cut.
    public static let connectionsCut = MetricsRegistry.Metric.counter(
        "sleepledger_http_connections_cut_total",
        help:
            "Connections cut on the main listener by reason (head_timeout: the request head took too long; slow_body: the body arrived slower than the minimum rate)",
        labels: ["reason"])
    /// Jobs the workers ended.
    public static let jobs = MetricsRegistry.Metric.counter(
        "sleepledger_import_jobs_total",
        help:
            "Import jobs this process's workers ran, by outcome (done, failed, requeued: another import held the user's lock, lost: no longer this worker's)",
        labels: ["outcome"])
    /// How long imports took.
    public static let importDuration = MetricsRegistry.Metric.histogram(
        "sleepledger_import_duration_seconds",
        help: "Time a worker took to import a job that ended done or failed, claim to end",
        buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600])
    /// Rollups after imports.
    public static let rollups = MetricsRegistry.Metric.counter(
        "sleepledger_rollups_total", help: "Rollups run after imports, by outcome (succeeded, failed)",
        labels: ["outcome"])
    /// How long rollups took.
    public static let rollupDuration = MetricsRegistry.Metric.histogram(
        "sleepledger_rollup_duration_seconds", help: "Time of the user's rollup after an import",
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120])

    /// The outcomes of ``jobs``, present from the start so that rates are defined.
    public static let jobOutcomes = ["done", "failed", "requeued", "lost"]
    /// Methods counted by name; any other is `other`, so a client cannot add label values.
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// What is read when Prometheus scrapes: the queue (`nil` when the database did not
    /// answer), the session pool, requests in flight and workers.
    public struct Live: Sendable, Hashable {
        /// The whole queue's depth and age; `nil` when it could not be read.
        public var queue: ImportQueue.Statistics?
        /// Sessions of the pool handed to requests now.
        public var poolInUse: Int
        /// Sessions the pool holds open (in use or idle).
        public var poolOpen: Int
        /// The most sessions the pool opens.
        public var poolCapacity: Int
        /// Requests being answered now.
        public var requestsInFlight: Int
        /// Connections open on the main listener now.
        public var openConnections: Int
        /// Import worker threads of this process.
        public var workers: Int
        /// Of them, those importing a job now.
        public var busyWorkers: Int
        /// WAL archiving and the last backups; `nil` when not read.
        public var backups: BackupHealth?
        /// Calls of this process that found the database lost (a failover), each dropping
        /// the sessions to that server.
        public var databaseSessionsLost = 0
        /// Calls tried again after a lost database that connected again.
        public var databaseReconnects = 0
        /// The replica's lag in seconds (``LedgerServices/ReplicaReads/lagSeconds()``);
        /// `nil` without a replica or when it could not be asked.
        public var replicaLagSeconds: Double?
        /// Whether a replica is configured (`SLEEPLEDGER_READ_DATABASE_URL`).
        public var hasReplica = false

        /// Creates the live values.
        public init(
            queue: ImportQueue.Statistics?, poolInUse: Int, poolOpen: Int, poolCapacity: Int, requestsInFlight: Int,
            openConnections: Int = 0, workers: Int, busyWorkers: Int, backups: BackupHealth? = nil
        ) {
            self.backups = backups
            self.openConnections = openConnections
            self.queue = queue
            self.poolInUse = poolInUse
            self.poolOpen = poolOpen
            self.poolCapacity = poolCapacity
            self.requestsInFlight = requestsInFlight
            self.workers = workers
            self.busyWorkers = busyWorkers
        }
    }

    /// The recorded counters and histograms.
    public let registry = MetricsRegistry([
        requests, requestDuration, uploadBytes, connectionsCut, jobs, importDuration, rollups, rollupDuration,
    ])
    /// The release, shown as `sleepledger_build_info{version=...}`.
    public let version: String
    /// When the process started, epoch seconds.
    public let startTime: Double

    /// Metrics of a server of `version` started at `startTime` (epoch seconds).
    public init(version: String, startTime: Double) {
        self.version = version
        self.startTime = startTime
        for outcome in Self.jobOutcomes { registry.add(0, to: Self.jobs, labels: [outcome]) }
        for outcome in ["succeeded", "failed"] { registry.add(0, to: Self.rollups, labels: [outcome]) }
        for cut in ConnectionDeadlines.Cut.allCases { registry.add(0, to: Self.connectionsCut, labels: [cut.rawValue]) }
    }

    /// Records a connection the connection watch cut.
    func recordCut(_ cut: ConnectionDeadlines.Cut) {
        registry.add(to: Self.connectionsCut, labels: [cut.rawValue])
    }

    /// Records a request that ended: its route template (`unmatched` when none matched),
    /// method, status (`nil` when no answer was sent) and duration.
    public func recordRequest(route: String?, method: String, status: Int?, seconds: Double) {
        let route = route ?? "unmatched"
        let method = Self.methods.contains(method) ? method : "other"
        registry.count(
            Self.requests, labels: [route, method, status.map(String.init) ?? "none"], observing: seconds,
            in: Self.requestDuration, labels: [route])
    }

    /// Records `count` body bytes received on upload route `route`.
    public func recordUploadBytes(route: String?, count: Int) {
        registry.add(Double(count), to: Self.uploadBytes, labels: [route ?? "unmatched"])
    }

    /// Records a job a worker ran: its state afterwards and how long it took.
    public func recordJob(state: ImportJobStore.State, seconds: Double) {
        switch state {
        case .done, .failed:
            registry.add(to: Self.jobs, labels: [state == .done ? "done" : "failed"])
            registry.observe(seconds, in: Self.importDuration)
        case .queued:
            registry.add(to: Self.jobs, labels: ["requeued"])
        case .running, .cancelled:
            registry.add(to: Self.jobs, labels: ["lost"])
        }
    }

    /// Records a rollup after an import.
    public func recordRollup(succeeded: Bool, seconds: Double) {
        registry.add(to: Self.rollups, labels: [succeeded ? "succeeded" : "failed"])
        registry.observe(seconds, in: Self.rollupDuration)
    }

    /// Every family for a scrape: what was recorded, then `live`'s values, build and start.
    public func families(live: Live) -> [MetricFamily] {
        var families = registry.snapshot()
        families.append(
            .gauge(
                "sleepledger_database_up", help: "1 when this scrape could read the import queue from the database",
                live.queue == nil ? 0 : 1))
        if let queue = live.queue {
            families.append(
                MetricFamily(
                    name: "sleepledger_import_queue_jobs",
                    help: "Import jobs in the database's queue (every user and host) by state", kind: .gauge,
                    labelNames: ["state"],
                    series: [
                        .init(labelValues: ["queued"], value: .number(Double(queue.queued))),
                        .init(labelValues: ["running"], value: .number(Double(queue.running))),
                    ]))
            families.append(
                .gauge(
                    "sleepledger_import_queue_oldest_age_seconds",
                    help: "Seconds since the oldest waiting import job was queued (0 when none waits)",
                    queue.oldestQueuedSeconds))
        }
        if let backups = live.backups { families += Self.backupFamilies(backups) }
        families += [
            .gauge(
                "sleepledger_database_pool_sessions_in_use",
                help: "Database sessions of the request pool handed to requests now", Double(live.poolInUse)),
            .gauge(
                "sleepledger_database_pool_sessions_open",
                help: "Database sessions the request pool holds open, in use or idle", Double(live.poolOpen)),
            .gauge(
                "sleepledger_database_pool_sessions_capacity",
                help: "The most database sessions the request pool opens", Double(live.poolCapacity)),
            .gauge(
                "sleepledger_http_requests_in_flight", help: "Requests on the main listener being answered now",
                Double(live.requestsInFlight)),
            .gauge(
                "sleepledger_http_connections_open", help: "Connections open on the main listener now",
                Double(live.openConnections)),
            .counter(
                "sleepledger_database_sessions_lost_total",
                help: "Calls that found the database lost (a failover: a broken connection, SQLSTATE 08xxx, "
                    + "57P01-57P03 or 25006), each dropping the sessions to that server",
                Double(live.databaseSessionsLost)),
            .counter(
                "sleepledger_database_reconnects_total",
                help: "Calls tried again after a lost database that connected again", Double(live.databaseReconnects)),
            .gauge("sleepledger_import_workers", help: "Import worker threads of this process", Double(live.workers)),
            .gauge(
                "sleepledger_import_workers_busy", help: "Import worker threads importing (or claiming) a job now",
                Double(live.busyWorkers)),
            MetricFamily(
                name: "sleepledger_build_info", help: "The running release (always 1)", kind: .gauge,
                labelNames: ["version"], series: [.init(labelValues: [version], value: .number(1))]),
            .gauge(
                "sleepledger_start_time_seconds", help: "When the server process started, seconds since the epoch",
                startTime),
        ]
        if live.hasReplica {
            families.append(
                .gauge(
                    "sleepledger_replica_up", help: "1 when this scrape could ask the read replica for its lag",
                    live.replicaLagSeconds == nil ? 0 : 1))
            if let lag = live.replicaLagSeconds {
                families.append(
                    .gauge(
                        "sleepledger_replica_lag_seconds",
                        help: "Replication lag of the read replica seen from the server: 0 when it has replayed all "
                            + "it received, else seconds since the last transaction it replayed committed",
                        lag))
            }
        }
        return families
    }

    /// WAL archiving (`pg_stat_archiver`) and the last backups (`db backup`'s status file),
    /// for the alert rules in deploy/prometheus/sleepledger-backups.rules.yml.
    static func backupFamilies(_ health: BackupHealth) -> [MetricFamily] {
        var families: [MetricFamily] = []
        if let archiver = health.archiver {
            families += [
                .gauge(
                    "sleepledger_wal_archiving_enabled", help: "1 when PostgreSQL's archive_mode is on",
                    archiver.archiveMode == "off" ? 0 : 1),
                MetricFamily(
                    name: "sleepledger_wal_archived_segments_total",
                    help: "WAL segments archived since the statistics were reset (pg_stat_archiver)", kind: .counter,
                    labelNames: [], series: [.init(labelValues: [], value: .number(Double(archiver.archivedCount)))]),
                MetricFamily(
                    name: "sleepledger_wal_archive_failures_total",
                    help: "Failed attempts to archive a WAL segment (pg_stat_archiver)", kind: .counter,
                    labelNames: [], series: [.init(labelValues: [], value: .number(Double(archiver.failedCount)))]),
                .gauge(
                    "sleepledger_wal_last_archived_timestamp_seconds",
                    help: "When the last WAL segment was archived, seconds since the epoch (0: never)",
                    archiver.lastArchivedAt ?? 0),
                .gauge(
                    "sleepledger_wal_last_failure_timestamp_seconds",
                    help: "When archiving a WAL segment last failed, seconds since the epoch (0: never)",
                    archiver.lastFailedAt ?? 0),
            ]
        }
        guard health.isSetUp == true else { return families }
        let success = health.status?.lastSuccess
        families += [
            .gauge(
                "sleepledger_backup_last_success_timestamp_seconds",
                help: "When the last good backup (any type) ended, seconds since the epoch (0: none)",
                success?.record?.stoppedAt ?? 0),
            .gauge(
                "sleepledger_backup_last_full_success_timestamp_seconds",
                help: "When the last good full backup ended, seconds since the epoch (0: none)",
                health.status?.lastFullSuccess?.record?.stoppedAt ?? 0),
            .gauge(
                "sleepledger_backup_last_run_failed", help: "1 when the last backup run failed",
                health.status?.lastAttempt?.failure == nil ? 0 : 1),
            .gauge(
                "sleepledger_backup_last_duration_seconds", help: "How long the last good backup took",
                success.map { $0.endedAt - $0.startedAt } ?? 0),
            .gauge(
                "sleepledger_backup_last_repository_bytes",
                help: "What the last good backup added to the repository, in bytes",
                Double(success?.record?.repositoryBytes ?? 0)),
        ]
        return families
    }
}
