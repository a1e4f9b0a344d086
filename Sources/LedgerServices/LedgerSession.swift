import LedgerStore
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

    /// Whether the connection is open, not known to be broken, and outside a transaction:
    /// fit to be handed to the next request.
    public var isReusable: Bool { connection.isOpen && !connection.isInTransaction }

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

    /// Runs `body` inside one transaction in which row-level security shows the server's
    /// role only the rows of user `userID` (`set_config('sleepledger.user_id', id, true)`:
    /// the setting ends with the transaction). What `body` throws rolls the transaction
    /// back and is rethrown as it is; a database failure around it is a ``ServiceError``.
    public func asUser<T>(_ userID: Int64, _ body: () throws -> T) throws -> T {
        do {
            return try connection.transaction { connection in
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
    func readAsUser(_ userID: Int64, _ statements: [PipelinedStatement]) throws(ServiceError) -> [QueryResult] {
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
    func readAsTokenOwner(id: Int64, hash: [UInt8], _ statements: [PipelinedStatement]) throws(ServiceError)
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
    static func userSetting(_ userID: Int64) -> PipelinedStatement {
        PipelinedStatement(
            "SELECT set_config($1, $2, true)", [.text(DatabaseRoles.currentUserSetting), .text(String(userID))],
            name: "session.asUser")
    }
}
