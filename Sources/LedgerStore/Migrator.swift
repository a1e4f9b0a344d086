public import PostgresClient

/// Applies the append-only `migrations/NNNN_name.sql` files in order, each in its own
/// transaction, recording them in `schema_migrations(version, name, applied_at)`.
///
/// Concurrent ``migrate(on:)`` runs against one database are serialised by the
/// session advisory lock ``advisoryLockKey``: the second waits, then finds nothing to do.
public struct Migrator: Sendable {
    /// Advisory lock key held while migrating (ASCII "SLMIGRAT").
    public static let advisoryLockKey: Int64 = 0x534C_4D49_4752_4154

    /// The migrations this program knows, by ascending version.
    public let migrations: [Migration]

    /// Uses `migrations`; throws `migrationFailed` when two share a version.
    public init(migrations: [Migration]) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw StoreError(
                .migrationFailed,
                "two migrations have version \(next.version): \(previous.fileName) and \(next.fileName)")
        }
        self.migrations = sorted
    }

    /// The folder the migrations were loaded from, when they came from one; `roles.sql` is
    /// found beside it.
    public private(set) var folder: String?

    /// Loads the `NNNN_name.sql` files of `folder` (see ``locateMigrationsFolder(environment:executablePath:currentDirectory:)``).
    public init(folder: String) throws {
        try self.init(migrations: Migration.load(folder: folder))
        self.folder = folder
    }

    /// The highest version this program knows; 0 without migrations.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    // MARK: Status

    /// Every known migration as applied or pending, plus versions the database has that
    /// this program does not know (``MigrationStatus/State/unknown``), by version.
    public func status(on connection: Connection) throws -> [MigrationStatus] {
        let applied = try appliedVersions(on: connection)
        var lines: [MigrationStatus] = migrations.map { migration in
            if let record = applied[migration.version] {
                return MigrationStatus(
                    version: migration.version, name: migration.name, state: .applied, appliedAt: record.appliedAt)
            }
            return MigrationStatus(version: migration.version, name: migration.name, state: .pending, appliedAt: nil)
        }
        let known = Set(migrations.map(\.version))
        for (version, record) in applied where !known.contains(version) {
            lines.append(
                MigrationStatus(version: version, name: record.name, state: .unknown, appliedAt: record.appliedAt))
        }
        return lines.sorted { $0.version < $1.version }
    }

    /// Throws `schemaTooNew` when the database has a version this program does not know,
    /// and, when `requireCurrent`, `schemaPending` (naming `sleepledger migrate`) when
    /// migrations are pending.
    public func checkCompatible(on connection: Connection, requireCurrent: Bool) throws {
        let lines = try status(on: connection)
        let unknown = lines.filter { $0.state == .unknown }
        if let newest = unknown.last {
            throw StoreError(
                .schemaTooNew,
                "the database schema is at version \(newest.version) (\(newest.name)), newer than this SleepLedger, which knows versions up to \(latestVersion)",
                detail: "upgrade SleepLedger; do not run an older version against this database")
        }
        let pending = lines.filter { $0.state == .pending }
        if requireCurrent, !pending.isEmpty {
            let names = pending.map { Migration(version: $0.version, name: $0.name, sql: "").fileName }
            throw StoreError(
                .schemaPending,
                "the database schema is out of date: \(pending.count) migration(s) pending; run `sleepledger migrate`",
                detail: "pending: \(names.joined(separator: ", "))")
        }
    }

    // MARK: Migrate

    /// Applies every pending migration in version order, each in its own transaction, and
    /// returns those applied (empty when the schema is current). Refuses (`schemaTooNew`)
    /// a database migrated by a newer program. A failing migration throws
    /// `migrationFailed` naming its file (the server's full message, DETAIL included, in
    /// `debugDetail`); earlier ones stay applied. Values a migration needs from this
    /// program (the handle keys of 0007) are written into temporary tables in its
    /// transaction first (``MigrationInputs``).
    @discardableResult
    public func migrate(on connection: Connection) throws -> [Migration] {
        try connection.advisoryLock(Migrator.advisoryLockKey)
        defer { _ = try? connection.advisoryUnlock(Migrator.advisoryLockKey) }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, name: "migrations.createVersionTable")
        try checkCompatible(on: connection, requireCurrent: false)
        let applied = try appliedVersions(on: connection)
        var done: [Migration] = []
        for migration in migrations where applied[migration.version] == nil {
            do {
                try connection.transaction { connection in
                    try MigrationInputs.prepare(for: migration, on: connection)
                    try connection.executeScript(migration.sql, name: migration.fileName)
                    try connection.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                        [.int(migration.version), .text(migration.name)], name: "migrations.record")
                }
            } catch let error as PostgresError {
                throw StoreError(
                    .migrationFailed, "migration \(migration.fileName) failed: \(error.logSafeMessage)",
                    sqlState: error.sqlState, statement: migration.fileName, debugDetail: error.debugDescription)
            }
            done.append(migration)
        }
        return done
    }

    /// Creates the SleepLedger roles and grants (`deploy/postgres/roles.sql`, found beside
    /// the migrations folder). Idempotent; needs a superuser or CREATEROLE. Run it after
    /// ``migrate(on:)`` so the grants and table ownership cover the new tables.
    public func applyRoles(on connection: Connection) throws {
        guard let folder else {
            throw StoreError(.invalidUse, "roles.sql is found beside a migrations folder; this migrator has none")
        }
        try DatabaseRoles.apply(on: connection, script: DatabaseRoles.script(migrationsFolder: folder))
    }

    private func appliedVersions(on connection: Connection) throws -> [Int: (name: String, appliedAt: Int64?)] {
        let exists =
            try connection.execute(
                "SELECT to_regclass('public.schema_migrations') IS NOT NULL", name: "migrations.findVersionTable"
            ).single().bool(0) ?? false
        guard exists else { return [:] }
        let result = try connection.execute(
            "SELECT version, name, applied_at FROM schema_migrations ORDER BY version", name: "migrations.readVersions")
        var applied: [Int: (name: String, appliedAt: Int64?)] = [:]
        for row in result.rows {
            guard let version = try row.int("version") else { continue }
            applied[version] = (try row.string("name") ?? "", try row.epochSeconds("applied_at"))
        }
        return applied
    }
}
