/// Whether one schema version is applied to a database.
public struct MigrationStatus: Sendable, Hashable {
    /// Applied, pending, or recorded in the database but unknown to this program.
    public enum State: String, Sendable, Hashable {
        /// Recorded in `schema_migrations`.
        case applied
        /// Known to this program, not yet applied.
        case pending
        /// Recorded in the database but not among this program's migrations: the database
        /// was migrated by a newer SleepLedger.
        case unknown
    }

    /// The schema version.
    public let version: Int
    /// The migration's name (from the file, or as recorded for ``State/unknown``).
    public let name: String
    /// Applied, pending or unknown.
    public let state: State
    /// When it was applied, in whole UTC seconds since 1970; `nil` when pending.
    public let appliedAt: Int64?

    /// Creates a status line.
    public init(version: Int, name: String, state: State, appliedAt: Int64?) {
        self.version = version
        self.name = name
        self.state = state
        self.appliedAt = appliedAt
    }
}
