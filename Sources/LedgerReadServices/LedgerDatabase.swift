import EmbeddedPostgres
public import LedgerStore
package import PostgresClient

/// Where the ledger's database is and which schema this build speaks: the one place that
/// opens connections for the use cases.
///
/// On the embedded default a session starts the cluster on demand (creating it on first
/// use) and migrates it, schema and roles; on an external database a writing session
/// refuses pending migrations and every session refuses a schema newer than this build.
public struct LedgerDatabase: Sendable, CustomStringConvertible {
    /// Whether a session is about to write, which requires an up-to-date schema.
    public enum Access: Sendable {
        /// Only reads.
        case reads
        /// Reads and writes.
        case writes
    }

    /// The state of the embedded cluster.
    public enum ClusterState: Sendable, Equatable {
        /// No cluster in the data folder yet: the first session creates it.
        case notCreated
        /// Created, no server running.
        case stopped
        /// A server with this process id serves it.
        case running(pid: Int32)
    }

    /// Where the database is.
    public let configuration: DatabaseConfiguration
    /// The folder of `NNNN_name.sql` migrations; `nil` when none was found.
    public let migrationsFolder: String?

    /// The file of deleted accounts' tombstones, which a deletion appends to and which
    /// restores and writing starts re-apply (``reapplyDeletions()``); `nil` when backups
    /// are not set up and none is configured.
    public let tombstoneFile: TombstoneFile?

    /// The setting of ``tombstoneFile`` (for an external database; the embedded default
    /// takes it from its backup settings when this is unset).
    public static let tombstoneFileVariable = "SLEEPLEDGER_TOMBSTONES"

    /// Uses `configuration`, the migrations in `migrationsFolder` and `tombstoneFile`.
    public init(configuration: DatabaseConfiguration, migrationsFolder: String?, tombstoneFile: TombstoneFile? = nil) {
        self.configuration = configuration
        self.migrationsFolder = migrationsFolder
        self.tombstoneFile = tombstoneFile
    }

    /// From the environment: `DATABASE_URL`, libpq's `PG*` variables or the embedded
    /// default (``DatabaseConfiguration``), `SLEEPLEDGER_MIGRATIONS` or the migrations
    /// found next to the executable or in the checkout, and `SLEEPLEDGER_TOMBSTONES` or the
    /// embedded default's backup settings.
    public init(environment: [String: String]) throws(ServiceError) {
        let configuration = try ServiceError.wrapping { try DatabaseConfiguration(environment: environment) }
        var tombstones = environment[Self.tombstoneFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        if tombstones == nil, case .embedded(let home) = configuration.source {
            tombstones = ClusterBackups(cluster: EmbeddedCluster(home: home)).settings()?.tombstoneFile
        }
        self.init(
            configuration: configuration,
            migrationsFolder: Migrator.locateMigrationsFolder(environment: environment),
            tombstoneFile: tombstones.map(TombstoneFile.init(path:)))
    }

    /// The configuration's log-safe description (no password).
    public var description: String { configuration.description }

    /// The migrator for this build's migrations.
    package func migrator() throws(ServiceError) -> Migrator {
        guard let migrationsFolder else {
            throw ServiceError(
                .internalFailure,
                "cannot find the migrations folder; set SLEEPLEDGER_MIGRATIONS to the project's migrations/")
        }
        return try ServiceError.wrapping { try Migrator(folder: migrationsFolder) }
    }

    /// Opens a session for `access`, after the checks in the type's documentation.
    public func open(access: Access) throws(ServiceError) -> LedgerSession {
        let migrator = try migrator()
        return try ServiceError.wrapping {
            let connection = try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: true))
            do {
                if configuration.isEmbedded {
                    _ = try migrator.migrate(on: connection)
                    try migrator.applyRoles(on: connection)
                } else {
                    try migrator.checkCompatible(on: connection, requireCurrent: access == .writes)
                }
            } catch {
                connection.close()
                throw error
            }
            return LedgerSession(connection: connection)
        }
    }

    /// Opens a session as the read-only role (`sleepledger_readonly`), never starting,
    /// creating or migrating anything, after checking that the schema is exactly the one
    /// this build knows: an older one lacks tables pending migrations would create.
    ///
    /// The session is read-only by its own doing (``LedgerSession/isReadOnly``), not by the
    /// role's `default_transaction_read_only`, which any role may change for itself
    /// (`ALTER ROLE ... SET`): before its first statement it sets its characteristics to
    /// `READ ONLY`, so every transaction, explicit or implicit, is read-only. The role's
    /// missing privileges are the second, independent guard.
    ///
    /// Where it connects: `readOnlyURL` verbatim when given (a URL for the read-only role
    /// or a login role that is a member of it); else the configured database with the
    /// user replaced by `sleepledger_readonly`; on the embedded default only while the
    /// cluster runs (``ServiceError/Kind/unavailable`` naming `sleepledger db start`
    /// otherwise).
    public func openReadOnly(readOnlyURL: String?) throws(ServiceError) -> LedgerSession {
        let migrator = try migrator()
        return try ServiceError.wrapping {
            let connection = try Connection(
                conninfo: try conninfo(as: DatabaseRoles.readOnly, explicitURL: readOnlyURL))
            do {
                try LedgerSession.makeReadOnly(connection)
                try connection.readOnlyTransaction { connection in
                    try migrator.checkCompatible(on: connection, requireCurrent: true)
                }
            } catch {
                connection.close()
                throw error
            }
            return LedgerSession(connection: connection, isReadOnly: true)
        }
    }

    /// Opens a session as the server's role (`sleepledger_server`), which row-level
    /// security holds to one user's rows per transaction (``LedgerSession/asUser(_:_:)``).
    /// The schema must be current; on the embedded default the cluster must run (start
    /// it and bring it up to date with ``startCluster()`` first).
    ///
    /// Where it connects: `serverURL` verbatim when given; else the configured database
    /// with the user replaced by `sleepledger_server`.
    public func openAsServer(serverURL: String?) throws(ServiceError) -> LedgerSession {
        let migrator = try migrator()
        return try ServiceError.wrapping {
            let connection = try Connection(conninfo: try conninfo(as: DatabaseRoles.server, explicitURL: serverURL))
            do {
                try migrator.checkCompatible(on: connection, requireCurrent: true)
            } catch {
                connection.close()
                throw error
            }
            return LedgerSession(connection: connection)
        }
    }

    /// The connection string for `role`: `explicitURL` verbatim when given, else the
    /// configured database with its user replaced by `role` (the embedded cluster only
    /// while it runs).
    ///
    /// For the read-only role, a `target_session_attrs=read-write` of the configured
    /// database becomes `primary`: the same server of a multi-host list, without libpq's
    /// check of `transaction_read_only`, which that role's sessions always fail.
    private func conninfo(as role: String, explicitURL: String?) throws -> String {
        if let explicitURL, !explicitURL.isEmpty { return explicitURL }
        switch configuration.source {
        case .url(let url):
            do {
                let rewritten = try ConnectionString.settingParameter("user", to: role, in: url)
                guard role == DatabaseRoles.readOnly,
                    ConnectionString.parameter("target_session_attrs", in: rewritten) == "read-write"
                else { return rewritten }
                return try ConnectionString.settingParameter("target_session_attrs", to: "primary", in: rewritten)
            } catch let error as PostgresError {
                // A configuration the person must fix, not a bug; the message is log-safe.
                throw ServiceError(
                    .unavailable, "cannot use DATABASE_URL: \(error.message)", debugDetail: error.debugDescription)
            }
        case .libpqEnvironment:
            return try ConnectionString.settingParameter("user", to: role, in: "")
        case .embedded(let home):
            let cluster = EmbeddedCluster(home: home)
            guard case .running = cluster.status() else {
                throw ServiceError(
                    .unavailable,
                    "the embedded database at \(home) is not running; start it with `sleepledger db start`")
            }
            // Its socket must be one nobody else could have put there.
            try cluster.checkFolders()
            return try ConnectionString.settingParameter("user", to: role, in: cluster.conninfo())
        }
    }

    /// A plain connection to the configured database (the embedded cluster must already
    /// run: open a session first), for work spread over several connections.
    package func connect() throws -> Connection {
        try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: false))
    }

    // MARK: Schema

    /// Checks that `session` reaches the database and that its schema is exactly the one
    /// this build knows (``ServiceError/Kind/unavailable`` otherwise): a health check.
    public func checkSchema(on session: LedgerSession) throws(ServiceError) {
        let migrator = try migrator()
        try ServiceError.wrapping { try migrator.checkCompatible(on: session.connection, requireCurrent: true) }
    }

    /// Applies every pending migration and then the roles; returns the migrations applied.
    public func migrate() throws(ServiceError) -> [Migration] {
        let migrator = try migrator()
        return try ServiceError.wrapping {
            let connection = try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: true))
            defer { connection.close() }
            let applied = try migrator.migrate(on: connection)
            try migrator.applyRoles(on: connection)
            return applied
        }
    }

    /// Every known migration as applied or pending, and versions the database has that
    /// this build does not know.
    public func migrationStatus() throws(ServiceError) -> [MigrationStatus] {
        let migrator = try migrator()
        return try ServiceError.wrapping {
            let connection = try Connection(conninfo: configuration.conninfo(startingEmbeddedCluster: true))
            defer { connection.close() }
            return try migrator.status(on: connection)
        }
    }

    // MARK: Embedded cluster

    /// The data folder of the embedded default; `nil` when an external database is configured.
    public var embeddedHome: String? {
        if case .embedded(let home) = configuration.source { return home }
        return nil
    }

    /// The embedded cluster's state; `nil` when an external database is configured.
    public func clusterState() -> ClusterState? {
        guard let embeddedHome else { return nil }
        switch EmbeddedCluster(home: embeddedHome).status() {
        case .notInitialized: return .notCreated
        case .stopped: return .stopped
        case .running(let pid): return .running(pid: pid)
        }
    }

    /// Starts the embedded cluster (creating it on first use) and brings its schema and
    /// roles up to date.
    public func startCluster() throws(ServiceError) {
        try open(access: .writes).close()
    }

    /// Stops the embedded cluster (fast shutdown); nothing when it does not run.
    public func stopCluster() throws(ServiceError) {
        guard let embeddedHome else { return }
        try ServiceError.wrapping { try EmbeddedCluster(home: embeddedHome).stop() }
    }

    /// The embedded cluster's libpq connection string (superuser, over its socket).
    public func clusterConninfo() -> String? {
        embeddedHome.map { EmbeddedCluster(home: $0).conninfo() }
    }
}
