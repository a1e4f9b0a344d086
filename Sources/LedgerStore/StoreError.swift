/// The one error type of the repositories and the migrator: what SleepLedger's stored
/// data or schema does not allow. Failures of the database itself arrive as the client's
/// `PostgresError`.
///
/// ``description`` is safe to log: messages name tables, files, versions and statement
/// labels, never a value from a row or a parameter.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The named row does not exist.
        case notFound
        /// A migration file could not be read or applied.
        case migrationFailed
        /// The database holds a schema version this tool does not know: it is older than
        /// the database, so it must not touch it.
        case schemaTooNew
        /// Migrations are pending and the caller asked for a current schema.
        case schemaPending
        /// A stored value does not have the shape this version writes.
        case decodingFailed
        /// A value cannot be stored in the shape this version writes.
        case invalidValue
        /// The API was used in a way it does not support.
        case invalidUse
        /// Another transaction held a lock this call needs for the whole bounded wait
        /// (a user's import lock, ``ImportLock``); try again later.
        case busy
        /// The tombstone file of deleted accounts could not be read or written
        /// (``TombstoneFile``): a deletion is not done without its tombstone.
        case tombstoneFileFailed
    }

    /// What went wrong.
    public var kind: Kind
    /// The primary, log-safe message.
    public var message: String
    /// The SQLSTATE of the database failure behind this one, when there was one.
    public var sqlState: String?
    /// What to do about it, or what was looked at (log-safe).
    public var detail: String?
    /// The statement label or migration file concerned.
    public var statement: String?
    /// Everything the database said, values included (a failed migration's DETAIL): never
    /// part of ``description``, only for an operator who asked (`SLEEPLEDGER_DEBUG=1`).
    public var debugDetail: String?

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, sqlState: String? = nil, detail: String? = nil, statement: String? = nil,
        debugDetail: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.statement = statement
        self.debugDetail = debugDetail
    }

    /// `kind: message [SQLSTATE xxxxx] (statement label) - detail`, on one line.
    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        if let sqlState { text += " [SQLSTATE \(sqlState)]" }
        if let statement { text += " (statement \(statement))" }
        if let detail, !detail.isEmpty { text += " - \(detail)" }
        return text
    }
}
