public import PostgresClient

/// Whether PostgreSQL's continuous WAL archiving works, from `pg_stat_archiver` and the
/// `archive_mode` setting (readable by every role).
public struct ArchiverStatus: Sendable, Hashable {
    /// `archive_mode`: `off`, `on` or `always`.
    public var archiveMode: String
    /// WAL segments archived since the statistics were reset.
    public var archivedCount: Int64
    /// When the last segment was archived, in seconds since 1970; `nil` before the first.
    public var lastArchivedAt: Double?
    /// The last segment archived.
    public var lastArchivedWAL: String?
    /// Failed attempts to archive a segment.
    public var failedCount: Int64
    /// When the last attempt failed, in seconds since 1970; `nil` when none did.
    public var lastFailedAt: Double?
    /// The segment of the last failed attempt.
    public var lastFailedWAL: String?

    /// Creates a status.
    public init(
        archiveMode: String, archivedCount: Int64, lastArchivedAt: Double?, lastArchivedWAL: String?,
        failedCount: Int64,
        lastFailedAt: Double?, lastFailedWAL: String?
    ) {
        self.archiveMode = archiveMode
        self.archivedCount = archivedCount
        self.lastArchivedAt = lastArchivedAt
        self.lastArchivedWAL = lastArchivedWAL
        self.failedCount = failedCount
        self.lastFailedAt = lastFailedAt
        self.lastFailedWAL = lastFailedWAL
    }

    /// Archiving is on and the last attempt, if any, succeeded.
    public var isWorking: Bool {
        guard archiveMode != "off" else { return false }
        guard let lastFailedAt else { return true }
        return (lastArchivedAt ?? 0) >= lastFailedAt
    }

    /// Reads the status on `connection`.
    public static func read(_ connection: Connection) throws -> ArchiverStatus {
        let row = try connection.execute(
            """
            SELECT current_setting('archive_mode'), archived_count, extract(epoch FROM last_archived_time)::float8,
                last_archived_wal, failed_count, extract(epoch FROM last_failed_time)::float8, last_failed_wal
            FROM pg_stat_archiver
            """, name: "archiver.status"
        ).first
        guard let row, let mode = try row.string(0), let archived = try row.int64(1), let failed = try row.int64(4)
        else { throw StoreError(.decodingFailed, "pg_stat_archiver returned no row", statement: "archiver.status") }
        return ArchiverStatus(
            archiveMode: mode, archivedCount: archived, lastArchivedAt: try row.double(2),
            lastArchivedWAL: try row.string(3), failedCount: failed, lastFailedAt: try row.double(5),
            lastFailedWAL: try row.string(6))
    }
}
