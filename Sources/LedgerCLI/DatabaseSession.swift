import LedgerStore

/// An open connection to the configured database, checked for a compatible schema.
///
/// On the embedded default the cluster is started on demand (created on first use) and
/// migrated, schema and roles; on an external database a writing tool refuses pending
/// migrations and every tool refuses a schema newer than it knows.
struct DatabaseSession {
    /// The connection; closed by ``close()``.
    let connection: Connection

    /// Whether the tool is about to write, which requires an up-to-date schema.
    enum Access { case reads, writes }

    static func open(_ configuration: Configuration, access: Access) throws -> DatabaseSession {
        let migrator = try configuration.migrator()
        let connection = try Connection(conninfo: configuration.database.conninfo(startingEmbeddedCluster: true))
        do {
            if configuration.database.isEmbedded {
                _ = try migrator.migrate(on: connection)
                try migrator.applyRoles(on: connection)
            } else {
                try migrator.checkCompatible(on: connection, requireCurrent: access == .writes)
            }
        } catch {
            connection.close()
            throw error
        }
        return DatabaseSession(connection: connection)
    }

    func close() { connection.close() }
}
