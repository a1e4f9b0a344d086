import LedgerStore
package import PostgresClient

/// One open connection to the ledger, handed to the services: one request, command or
/// job at a time. Close it with ``close()`` (closing twice is harmless).
///
/// A read-only session (``isReadOnly``: the admin tool's, from
/// ``LedgerDatabase/openReadOnly(readOnlyURL:)``) makes every transaction read-only
/// itself, whatever the role's `default_transaction_read_only`: its session
/// characteristics are `READ ONLY` from the moment it connects, so a statement outside a
/// transaction and a plain `BEGIN` are read-only too, and its own transactions begin
/// `READ ONLY` explicitly.
public final class LedgerSession {
    package let connection: Connection
    /// Whether every transaction of this session is read-only by the session's own doing.
    public let isReadOnly: Bool

    /// Wraps `connection`; for a read-only session, its characteristics are already set
    /// (``makeReadOnly(_:)``).
    package init(connection: Connection, isReadOnly: Bool = false) {
        self.connection = connection
        self.isReadOnly = isReadOnly
    }

    /// Makes every later transaction of `connection` read-only
    /// (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`): explicit ones that do not
    /// say `READ WRITE`, and the implicit one around each statement outside a transaction.
    /// Only the session itself can undo it, and SleepLedger's code never does.
    package static func makeReadOnly(_ connection: Connection) throws {
        try connection.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", name: "session.readOnly")
    }

    /// Closes the connection.
    public func close() { connection.close() }

    /// Whether the connection is open, not known to be broken, and outside a transaction:
    /// fit to be handed to the next request.
    public var isReusable: Bool { connection.isOpen && !connection.isInTransaction }

    /// Runs `body` inside one read-only transaction at `REPEATABLE READ`, so every read in
    /// it sees one snapshot and nothing can be written. What `body` throws is rethrown as
    /// it is; a failure to begin or end the transaction is a ``ServiceError``.
    public func readOnly<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.snapshotTransaction { _ in try body() }
        } catch let error as PostgresError {
            throw ServiceError(error)
        }
    }

    /// Runs `body` inside one transaction in which row-level security shows the server's
    /// role only the rows of user `userID` (`set_config('sleepledger.user_id', id, true)`:
    /// the setting ends with the transaction); `BEGIN READ ONLY` on a read-only session.
    /// What `body` throws rolls the transaction back and is rethrown as it is; a database
    /// failure around it is a ``ServiceError``.
    public func asUser<T>(_ userID: Int64, _ body: () throws -> T) throws -> T {
        func run(_ connection: Connection) throws -> T {
            let setting = Self.userSetting(userID)
            try connection.executePrepared(setting.sql, setting.parameters, name: setting.name)
            return try body()
        }
        do {
            return try isReadOnly ? connection.readOnlyTransaction(run) : connection.transaction(run)
        } catch let error as PostgresError {
            throw ServiceError(error)
        }
    }

    /// Runs `body` inside one read-only transaction as user `userID` (row-level security as
    /// in ``asUser(_:_:)``) at `REPEATABLE READ`: every read in it, however long `body`
    /// takes, sees the one snapshot of its first statement. What `body` throws rolls the
    /// transaction back and is rethrown as it is; a database failure around it is a
    /// ``ServiceError``.
    public func snapshotAsUser<T>(_ userID: Int64, _ body: () throws -> T) throws -> T {
        do {
            return try connection.snapshotTransaction { connection in
                let setting = Self.userSetting(userID)
                try connection.executePrepared(setting.sql, setting.parameters, name: setting.name)
                return try body()
            }
        } catch let error as PostgresError {
            throw ServiceError(error)
        }
    }

    /// Runs `statements` in one read-only transaction as user `userID`, as ``asUser(_:_:)``
    /// would, but in one round trip: `BEGIN`, the setting, the statements and `COMMIT`
    /// are sent together (``PostgresClient/Connection/pipelinedTransaction(_:readOnly:)``)
    /// and run in that order, so the setting is in force for every statement. Returns the
    /// statements' results; a database failure is a ``ServiceError``.
    package func readAsUser(_ userID: Int64, _ statements: [PipelinedStatement]) throws(ServiceError) -> [QueryResult] {
        do {
            return Array(
                try connection.pipelinedTransaction([Self.userSetting(userID)] + statements, readOnly: true)
                    .dropFirst())
        } catch {
            throw ServiceError(error)
        }
    }

    /// Runs `statements` in one read-only transaction as the owner of the presented token
    /// `id` whose secret hashes to `hash`, in one round trip: `BEGIN`, the token's
    /// credentials, the owner setting (``LedgerStore/TokenStore/ownerSettingStatement(id:secretSHA256:)``:
    /// no one when the hash matches no valid token), the statements and `COMMIT`. Returns the
    /// credentials' result, then the statements'. The caller checks the credentials before
    /// it uses anything read; statements written for the current user
    /// (``LedgerStore/DatabaseRoles/currentUserID``) read nothing for a wrong token.
    package func readAsTokenOwner(id: Int64, hash: [UInt8], _ statements: [PipelinedStatement]) throws(ServiceError)
        -> [QueryResult]
    {
        do {
            let results = try connection.pipelinedTransaction(
                [
                    TokenStore.credentialsStatement(id: id),
                    TokenStore.ownerSettingStatement(id: id, secretSHA256: hash),
                ] + statements, readOnly: true)
            return [results[0]] + results.dropFirst(2)
        } catch {
            throw ServiceError(error)
        }
    }

    /// The statement naming the user whose rows row-level security shows, until the
    /// transaction ends.
    package static func userSetting(_ userID: Int64) -> PipelinedStatement {
        PipelinedStatement(
            "SELECT set_config($1, $2, true)", [.text(DatabaseRoles.currentUserSetting), .text(String(userID))],
            name: "session.asUser")
    }
}
