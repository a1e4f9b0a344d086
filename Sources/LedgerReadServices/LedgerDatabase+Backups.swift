public import EmbeddedPostgres
import Foundation
public import LedgerStore
import PostgresClient

/// Backups of the embedded default with pgBackRest (``ClusterBackups``) and the deleted
/// accounts' tombstones, which keep a restore from bringing an account back
/// (docs/operations.md, "Backups").
extension LedgerDatabase {
    /// What a restore did.
    public struct Restore: Sendable {
        /// The backups the repository held before the restore (the one restored is the
        /// newest that ended before the target).
        public var backupsBefore: [BackupRecord]
        /// Accounts a tombstone removed again.
        public var reappliedDeletions: [UserStore.ReappliedDeletion]
        /// The full backup taken after the restore, on the new timeline.
        public var newFullBackup: BackupRecord
    }

    /// The backups of the embedded cluster; ``ServiceError/Kind/unavailable`` on an
    /// external database, whose backups pgBackRest runs directly.
    public func clusterBackups() throws(ServiceError) -> ClusterBackups {
        guard let embeddedHome else {
            throw ServiceError(
                .unavailable,
                "an external database is configured: back it up with pgbackrest itself (docs/operations.md, \"Backups\")"
            )
        }
        return ClusterBackups(cluster: EmbeddedCluster(home: embeddedHome))
    }

    /// Takes a backup of `type` (``ClusterBackups/backup(type:)``).
    public func backUp(type: BackupType) throws(ServiceError) -> BackupRecord {
        let backups = try clusterBackups()
        return try ServiceError.wrapping { try backups.backup(type: type) }
    }

    /// The backups in the repository, oldest first (``ClusterBackups/list()``).
    public func listBackups() throws(ServiceError) -> [BackupRecord] {
        let backups = try clusterBackups()
        return try ServiceError.wrapping { try backups.list() }
    }

    /// Sets backups up (``ClusterBackups/setUp(_:)``) and brings the schema up to date;
    /// returns the passphrase (shown once) and the first full backup.
    public func setUpBackups(_ settings: BackupSettings) throws(ServiceError) -> (
        passphrase: String, first: BackupRecord
    ) {
        let backups = try clusterBackups()
        let result = try ServiceError.wrapping { try backups.setUp(settings) }
        try startCluster()
        return result
    }

    /// Restores the embedded cluster to `target`, after checks that change nothing
    /// (``ClusterBackups/restoreFiles(to:)``): starts it, waits for recovery to end,
    /// brings the schema up to date, removes again every account a tombstone names, forces
    /// a WAL switch and takes a full backup, so a later restore cannot bring back what this
    /// one undid. With `repository` (a new disk, no configuration left) the configuration
    /// is written first from it and `passphrase`.
    public func restore(
        to target: ClusterBackups.Target, repository: BackupSettings?, passphrase: String?,
        progress: (String) -> Void
    ) throws(ServiceError) -> Restore {
        let backups = try clusterBackups()
        return try ServiceError.wrapping {
            if let repository {
                if case .running = backups.cluster.status() {
                    throw BackupError(
                        .tryLater, "the embedded cluster at \(backups.cluster.home) is running; a restore replaces it",
                        detail: "stop it first with `sleepledger db stop`")
                }
                guard let passphrase, !passphrase.isEmpty else {
                    throw BackupError(
                        .badInput, "a restore from --repository needs the repository's passphrase",
                        detail: "give the file holding it with --passphrase-file FILE")
                }
                try backups.writeConfiguration(repository, passphrase: passphrase)
            }
            let before = try backups.restoreFiles(to: target)
            progress("restored the files of the backup; recovering to \(Self.describe(target))")
            try backups.cluster.start()
            try backups.waitUntilPromoted()
            progress("recovery ended; the cluster accepts writes")
            // Settings written by this restore's repository, or the ones restored.
            let database = LedgerDatabase(
                configuration: configuration, migrationsFolder: migrationsFolder,
                tombstoneFile: tombstoneFile
                    ?? backups.settings().map { TombstoneFile(path: $0.tombstoneFile) })
            try database.startCluster()
            let reapplied = try database.reapplyDeletions()
            try backups.switchWAL()
            progress("taking a full backup of the restored cluster")
            let full = try backups.backup(type: .full)
            try backups.check()
            return Restore(backupsBefore: before, reappliedDeletions: reapplied, newFullBackup: full)
        }
    }

    private static func describe(_ target: ClusterBackups.Target) -> String {
        switch target {
        case .latest: return "the end of the archived WAL"
        case .time(let text, _): return text
        }
    }

    /// Removes again every account that ``tombstoneFile`` says was deleted and that is
    /// here with the same id and `created_at` (brought back by a restore), with all of its
    /// rows; returns them for the log. Nothing when no tombstone file is configured. Run
    /// by every writing start (`migrate`, `serve`, `worker`, `rollup`) and by a restore.
    public func reapplyDeletions() throws(ServiceError) -> [UserStore.ReappliedDeletion] {
        guard let tombstoneFile else { return [] }
        return try ServiceError.wrapping {
            let tombstones = try tombstoneFile.tombstones()
            guard !tombstones.isEmpty else { return [] }
            let connection = try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: true))
            defer { connection.close() }
            return try connection.transaction { connection in
                try UserStore(connection: connection).removeTombstoned(tombstones)
            }
        }
    }

    /// One log line for an account removed again.
    public static func logLine(_ removed: UserStore.ReappliedDeletion) -> String {
        let deleted = ClusterBackups.timestamp(Double(removed.deletedAtMicroseconds) / 1_000_000)
        return "removed account \(removed.userID) again: it was deleted at \(deleted) and a restore had "
            + "brought it back (its tombstone)"
    }
}

/// Whether backups work: WAL archiving (``LedgerStore/ArchiverStatus``) and the last
/// backup runs (``EmbeddedPostgres/BackupStatus``), for `db status` and the metrics.
public struct BackupHealth: Sendable, Hashable {
    /// Whether backups of the embedded default are set up (`nil` for an external database).
    public var isSetUp: Bool?
    /// Archiving as PostgreSQL reports it; `nil` when the database could not be asked.
    public var archiver: ArchiverStatus?
    /// The last backup runs `db backup` recorded; `nil` before the first or on an external database.
    public var status: BackupStatus?

    /// Creates a health report.
    public init(isSetUp: Bool? = nil, archiver: ArchiverStatus? = nil, status: BackupStatus? = nil) {
        self.isSetUp = isSetUp
        self.archiver = archiver
        self.status = status
    }

    /// Lines for `db status`.
    public var lines: [String] {
        var lines: [String] = []
        if isSetUp == false {
            lines.append("backups: not set up (`sleepledger db setup-backups --repository PATH`)")
        }
        if let archiver {
            if archiver.archiveMode == "off" {
                lines.append("WAL archiving: off")
            } else if archiver.isWorking {
                let last = archiver.lastArchivedAt.map { "last segment archived at " + ClusterBackups.timestamp($0) }
                lines.append(
                    "WAL archiving: working (\(last ?? "nothing archived yet"), \(archiver.archivedCount) archived)")
            } else {
                let failed = archiver.lastFailedAt.map(ClusterBackups.timestamp) ?? "?"
                lines.append(
                    "WAL archiving: FAILING (last failure at \(failed) on \(archiver.lastFailedWAL ?? "?"), "
                        + "\(archiver.failedCount) failures; see the backup/log folder)")
            }
        } else if isSetUp == true {
            lines.append("WAL archiving: unknown (the cluster does not run)")
        }
        if isSetUp == true {
            if let success = status?.lastSuccess, let record = success.record {
                lines.append(
                    "last good backup: \(record.label) (\(record.type.rawValue)), ended at "
                        + ClusterBackups.timestamp(record.stoppedAt))
            } else {
                lines.append("last good backup: none")
            }
            if let attempt = status?.lastAttempt, let failure = attempt.failure {
                lines.append("last backup run FAILED at \(ClusterBackups.timestamp(attempt.endedAt)): \(failure)")
            }
        }
        return lines
    }
}

extension LedgerDatabase {
    /// Whether backups work (``BackupHealth``), without starting anything: archiving is
    /// read only from a running cluster or the configured external database.
    public func backupHealth() -> BackupHealth {
        var health = BackupHealth()
        if let embeddedHome {
            let cluster = EmbeddedCluster(home: embeddedHome)
            let backups = ClusterBackups(cluster: cluster)
            health.isSetUp = backups.settings() != nil
            health.status = backups.status()
            guard case .running = cluster.status() else { return health }
        }
        health.archiver = try? {
            let connection = try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: false))
            defer { connection.close() }
            return try ArchiverStatus.read(connection)
        }()
        return health
    }
}
