import PostgresClient

/// One open connection to the ledger, handed to the services: one request, command or
/// job at a time. Close it with ``close()`` (closing twice is harmless).
public final class LedgerSession {
    let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    /// Closes the connection.
    public func close() { connection.close() }

    /// Runs `body` inside one read-only transaction, so every read in it sees one
    /// snapshot and nothing can be written. What `body` throws is rethrown as it is;
    /// a failure to begin or end the transaction is a ``ServiceError``.
    public func readOnly<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.readOnlyTransaction { _ in try body() }
        } catch let error as PostgresError {
            throw ServiceError(error)
        }
    }
}
