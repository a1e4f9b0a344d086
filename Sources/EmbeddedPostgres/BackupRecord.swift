import Foundation

/// What a backup copies: everything, or what changed since a previous backup.
public enum BackupType: String, Sendable, CaseIterable, Codable {
    /// The whole cluster.
    case full
    /// What changed since the last full backup.
    case diff
    /// What changed since the last backup of any type.
    case incr
}

/// One backup in the repository, as `pgbackrest info` lists it.
public struct BackupRecord: Sendable, Hashable, Codable {
    /// pgBackRest's label (`20261206-081500F`).
    public var label: String
    /// Its type.
    public var type: BackupType
    /// When it started and when it ended, in seconds since 1970 (whole seconds).
    public var startedAt: Double
    /// When it ended: the earliest time it can restore to.
    public var stoppedAt: Double
    /// The cluster's size when backed up, in bytes.
    public var databaseBytes: Int64
    /// What it added to the repository (compressed, encrypted), in bytes.
    public var repositoryBytes: Int64
    /// The first and last WAL segment it needs.
    public var walStart: String?
    /// The last WAL segment it needs.
    public var walStop: String?

    /// Creates a record.
    public init(
        label: String, type: BackupType, startedAt: Double, stoppedAt: Double, databaseBytes: Int64,
        repositoryBytes: Int64, walStart: String? = nil, walStop: String? = nil
    ) {
        self.label = label
        self.type = type
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.databaseBytes = databaseBytes
        self.repositoryBytes = repositoryBytes
        self.walStart = walStart
        self.walStop = walStop
    }

    /// The part of `pgbackrest info --output=json` read here.
    struct Stanza: Decodable {
        struct Status: Decodable {
            var code: Int
            var message: String
        }
        struct Backup: Decodable {
            struct Times: Decodable {
                var start: Double
                var stop: Double
            }
            struct Sizes: Decodable {
                struct Repository: Decodable { var delta: Int64 }
                var size: Int64
                var repository: Repository
            }
            struct Archive: Decodable {
                var start: String?
                var stop: String?
            }
            var label: String
            var type: String
            var timestamp: Times
            var info: Sizes
            var archive: Archive?
        }
        var name: String
        var status: Status
        var backup: [Backup]
    }

    init(_ backup: Stanza.Backup) {
        self.init(
            label: backup.label, type: BackupType(rawValue: backup.type) ?? .full, startedAt: backup.timestamp.start,
            stoppedAt: backup.timestamp.stop, databaseBytes: backup.info.size,
            repositoryBytes: backup.info.repository.delta, walStart: backup.archive?.start,
            walStop: backup.archive?.stop)
    }
}

/// The last backup runs, as `sleepledger db backup` records them in
/// `<home>/backup/status.json` for `db status` and the server's metrics.
public struct BackupStatus: Sendable, Hashable, Codable {
    /// One run.
    public struct Run: Sendable, Hashable, Codable {
        /// The type asked for.
        public var type: BackupType
        /// When the run started and ended, in seconds since 1970.
        public var startedAt: Double
        /// When it ended.
        public var endedAt: Double
        /// The backup it made; `nil` when it failed.
        public var record: BackupRecord?
        /// Why it failed; `nil` when it succeeded.
        public var failure: String?

        /// Creates a run.
        public init(
            type: BackupType, startedAt: Double, endedAt: Double, record: BackupRecord? = nil, failure: String? = nil
        ) {
            self.type = type
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.record = record
            self.failure = failure
        }
    }

    /// The last run, good or not.
    public var lastAttempt: Run?
    /// The last run that made a backup.
    public var lastSuccess: Run?
    /// The last run that made a full backup.
    public var lastFullSuccess: Run?

    /// An empty status.
    public init(lastAttempt: Run? = nil, lastSuccess: Run? = nil, lastFullSuccess: Run? = nil) {
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.lastFullSuccess = lastFullSuccess
    }

    /// Reads `path`; `nil` when it is missing or unreadable.
    public static func load(from path: String) -> BackupStatus? {
        guard let bytes = SmallFile.bytes(atPath: path) else { return nil }
        return try? JSONDecoder().decode(BackupStatus.self, from: Data(bytes))
    }

    /// The status as JSON text.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
