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
    /// role only the rows of user `userID` (`SET LOCAL sleepledger.user_id = '42'`:
    /// the setting ends with the transaction); `BEGIN READ ONLY` on a read-only session.
    /// What `body` throws rolls the transaction back and is rethrown as it is; a database
    /// failure around it is a ``ServiceError``.
    public func asUser<T>(_ userID: Int64, _ body: () throws -> T) throws -> T {
        func run(_ connection: Connection) throws -> T {
            try Self.nameUser(userID, on: connection)
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
                try Self.nameUser(userID, on: connection)
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
    /// `id` whose secret hashes to `hash`. The transaction is `BEGIN`, the owner setting
    /// (``userSetting(_:)``), the token checked as that owner
    /// (``LedgerStore/TokenStore/ownCredentialsStatement(userID:id:secretSHA256:)``: it ends
    /// the transaction, before anything is read, unless the owner has a valid token with
    /// that id and hash), the statements and `COMMIT`, sent together. `SET LOCAL` takes only
    /// a literal, so the owner must be known first: a token id's owner never changes, and
    /// the session remembers the owners of the tokens it has seen valid, so a phone asking
    /// again costs one round trip. An unknown id costs one more first: the definer look-up
    /// (``LedgerStore/TokenStore/credentialsStatement(id:)``) finds the owner of the valid
    /// token whose stored hash is `hash`. A remembered owner whose check fails (a wrong
    /// secret, a revoked token, or a restored database that gave the id to someone else) is
    /// forgotten and looked up again.
    ///
    /// Returns the credentials' result, then the statements'; only a credentials' result
    /// (without the presented hash) when no valid token has that id and hash. The caller
    /// checks the credentials (in constant time) before it uses anything read. Comparing
    /// hashes here tells a timing observer at most something about a SHA-256 of a secret,
    /// never the secret.
    package func readAsTokenOwner(id: Int64, hash: [UInt8], _ statements: [PipelinedStatement]) throws(ServiceError)
        -> [QueryResult]
    {
        do {
            if let owner = knownTokenOwners[id] {
                if let results = try readAsOwner(owner, tokenID: id, hash: hash, statements) { return results }
                knownTokenOwners[id] = nil
            }
            let lookUp = TokenStore.credentialsStatement(id: id)
            let credentials = try connection.executePrepared(lookUp.sql, lookUp.parameters, name: lookUp.name)
            guard
                let owner = try TokenStore.credentials(in: credentials).first(where: { $0.secretSHA256 == hash })?
                    .userID,
                let results = try readAsOwner(owner, tokenID: id, hash: hash, statements)
            else { return [credentials] }
            if knownTokenOwners.count >= Self.knownTokenOwnersLimit {
                knownTokenOwners.remove(at: knownTokenOwners.startIndex)
            }
            knownTokenOwners[id] = owner
            return results
        } catch {
            throw ServiceError(error)
        }
    }

    /// The owners of the valid tokens this session has served, by token id: at most
    /// ``knownTokenOwnersLimit``; past it, one arbitrary entry (the first in the
    /// dictionary's hash order) makes room for the new one, so with more tokens in use than
    /// that, a share of requests pays the look-up again. A session serves one request at a
    /// time, so no lock.
    private var knownTokenOwners: [Int64: Int64] = [:]
    /// How many token owners a session remembers: under 1 MB, per session.
    static let knownTokenOwnersLimit = 16_384

    /// The one round trip of ``readAsTokenOwner(id:hash:_:)`` once the owner is known;
    /// `nil` when the owner has no valid token `tokenID` with hash `hash`.
    private func readAsOwner(_ owner: Int64, tokenID: Int64, hash: [UInt8], _ statements: [PipelinedStatement])
        throws -> [QueryResult]?
    {
        do {
            return Array(
                try connection.pipelinedTransaction(
                    [
                        Self.userSetting(owner),
                        TokenStore.ownCredentialsStatement(userID: owner, id: tokenID, secretSHA256: hash),
                    ]
                        + statements, readOnly: true
                ).dropFirst())
        } catch let error as PostgresError where TokenStore.isNoOwnToken(error) {
            return nil
        }
    }

    /// Names user `userID` for row-level security until `connection`'s transaction ends
    /// (``userSetting(_:)``, sent unprepared: its text changes with the user).
    private static func nameUser(_ userID: Int64, on connection: Connection) throws {
        let setting = userSetting(userID)
        try connection.execute(setting.sql, name: setting.name)
    }

    /// The statement naming the user whose rows row-level security shows, until the
    /// transaction ends (``LedgerStore/DatabaseRoles/settingStatement(userID:)``: a
    /// `SET LOCAL` with the id written in, sent unprepared since its text changes with the
    /// user).
    package static func userSetting(_ userID: Int64) -> PipelinedStatement {
        PipelinedStatement(DatabaseRoles.settingStatement(userID: userID), name: "session.asUser", isPrepared: false)
    }
}
