import CLibPQ
import Glibc

/// One libpq connection to PostgreSQL, used by one thread at a time.
///
/// Every value reaches the server as a `PQexecParams` (or `PQexecPrepared`) parameter in
/// text format or as a `COPY` field; SQL text is never built from values. Each
/// `PGresult` is freed before the call returns and `PQfinish` runs on every path
/// (``close()`` or deinit).
///
/// The session is set to `TimeZone=UTC`, `DateStyle=ISO, YMD` and UTF-8 client encoding
/// on connect, so ``Row`` readers see one text form. Server notices are discarded (a
/// library does not print).
public final class Connection {
    private var handle: OpaquePointer?
    private var savepointDepth = 0
    /// Server-side prepared statements of this session, by SQL text (``executePrepared``).
    private var preparedStatements: [String: String] = [:]

    /// Connects with a libpq connection string: `key=value` pairs, a
    /// `postgresql://` URL, or the empty string to use only libpq's `PG*` environment.
    /// Throws `connectionFailed` with libpq's message on one line, made log-safe by
    /// ``ConnectionString/logSafeMessage(_:conninfo:)``: libpq quotes a malformed string
    /// (an unclosed `[`, a bad percent escape) in its message, password included, and
    /// neither the message nor the debug description may show it.
    public init(conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else {
            throw PostgresError(.connectionFailed, "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Connection.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(
                .connectionFailed,
                message.isEmpty ? "could not connect" : ConnectionString.logSafeMessage(message, conninfo: conninfo))
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        do {
            guard PQsetClientEncoding(connection, "UTF8") == 0 else {
                throw PostgresError(.connectionFailed, "could not set client encoding to UTF8")
            }
            try execute(
                "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, YMD', false)",
                name: "connection.setup")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the connection (`PQfinish`). Later calls throw `invalidUse`; closing twice is harmless.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedStatements = [:]
    }

    /// Whether ``close()`` has not been called and the connection is not known to be broken.
    public var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server's version number, e.g. `150018` for 15.18.
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// Whether a transaction block is open (idle in transaction, or in a failed one).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Whether a transaction block is open and failed: every statement but `ROLLBACK` (to
    /// a savepoint) is refused until it ends.
    public var isInFailedTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    func liveHandle() throws -> OpaquePointer {
        guard let handle else { throw PostgresError(.invalidUse, "the connection is closed") }
        return handle
    }

    // MARK: Statements

    /// Runs one statement with `$1, $2, ...` parameters (text format, `nil` is NULL) and
    /// returns its rows. `name` labels the statement in errors.
    ///
    /// Unique violations (23505) throw `alreadyExists`, other integrity violations (23xxx)
    /// `constraintViolated`, everything else `queryFailed`.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue?] = [], name: String? = nil) throws -> QueryResult {
        let connection = try liveHandle()
        return try withParameterValues(parameters, name: name) { buffer in
            try collect(
                PQexecParams(connection, sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0),
                connection: connection, name: name)
        }
    }

    /// ``execute(_:_:name:)`` through a prepared statement of this session: the first call
    /// with a given `sql` prepares it (`PQprepare`), later calls only bind and run it
    /// (`PQexecPrepared`), so the server parses and analyzes the text once per connection
    /// and may reuse its plan. For statements a connection runs many times whose plan does
    /// not depend on the parameter values (the rollup's per-user statements); a statement
    /// whose best plan depends on whether a parameter is NULL belongs in ``execute``.
    @discardableResult
    public func executePrepared(_ sql: String, _ parameters: [SQLValue?], name: String) throws -> QueryResult {
        let connection = try liveHandle()
        let statement = try preparedStatement(sql, parameterCount: parameters.count, name: name)
        return try withParameterValues(parameters, name: name) { buffer in
            try collect(
                PQexecPrepared(connection, statement, Int32(buffer.count), buffer.baseAddress, nil, nil, 0),
                connection: connection, name: name)
        }
    }

    /// ``executePrepared(_:_:name:)`` with the result in PostgreSQL's binary format, each
    /// row handed to `body` in place (no text conversion on either side; see
    /// ``BinaryRow``). Returns the number of rows. For the rollup's largest read.
    @discardableResult
    public func executePreparedBinary(
        _ sql: String, _ parameters: [SQLValue?], name: String, eachRow body: (BinaryRow) throws -> Void
    ) throws -> Int {
        let connection = try liveHandle()
        let statement = try preparedStatement(sql, parameterCount: parameters.count, name: name)
        return try withParameterValues(parameters, name: name) { buffer in
            guard
                let result = PQexecPrepared(
                    connection, statement, Int32(buffer.count), buffer.baseAddress, nil, nil, 1)
            else { throw connectionError(connection, kind: .queryFailed, name: name) }
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_TUPLES_OK else {
                throw Connection.serverError(result, kind: .queryFailed, name: name)
            }
            let rows = Int(PQntuples(result))
            for row in 0..<rows {
                try body(BinaryRow(result: result, row: Int32(row), statement: name))
            }
            return rows
        }
    }

    /// The server-side name of `sql` prepared on this session, preparing it on first use.
    func preparedStatement(_ sql: String, parameterCount: Int, name: String) throws -> String {
        if let known = preparedStatements[sql] { return known }
        let connection = try liveHandle()
        let fresh = "sleepledger_\(preparedStatements.count + 1)"
        _ = try collect(
            PQprepare(connection, fresh, sql, Int32(parameterCount), nil), connection: connection, name: name)
        preparedStatements[sql] = fresh
        return fresh
    }

    /// Calls `body` with the parameters as NUL-terminated C strings (`nil` for NULL).
    func withParameterValues<T>(
        _ parameters: [SQLValue?], name: String?, _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) throws -> T
    ) throws -> T {
        var cStrings: [UnsafeMutablePointer<CChar>?] = []
        cStrings.reserveCapacity(parameters.count)
        defer { for pointer in cStrings { free(pointer) } }
        for (index, parameter) in parameters.enumerated() {
            guard let parameter else {
                cStrings.append(nil)
                continue
            }
            let text = parameter.textRepresentation
            if text.utf8.contains(0) {
                throw PostgresError(
                    .invalidValue, "parameter $\(index + 1) contains a NUL character, which PostgreSQL cannot store",
                    statement: name)
            }
            guard let copy = strdup(text) else {
                throw PostgresError(.invalidValue, "out of memory copying parameter $\(index + 1)", statement: name)
            }
            cStrings.append(copy)
        }
        let values = cStrings.map { UnsafePointer($0) }
        return try values.withUnsafeBufferPointer { try body($0) }
    }

    /// Runs a trusted SQL script that may hold several statements (a migration file, the
    /// role setup) with `PQexec`. Never pass text that contains input: there are no
    /// parameters here. Stops at the first failing statement.
    @discardableResult
    public func executeScript(_ script: String, name: String? = nil) throws -> QueryResult {
        let connection = try liveHandle()
        if script.utf8.contains(0) {
            throw PostgresError(.invalidValue, "the script contains a NUL character", statement: name)
        }
        return try collect(PQexec(connection, script), connection: connection, name: name)
    }

    func collect(_ result: OpaquePointer?, connection: OpaquePointer, name: String?) throws -> QueryResult {
        guard let result else { throw connectionError(connection, kind: .queryFailed, name: name) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Connection.extract(result)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            drain(connection)
            throw PostgresError(.invalidUse, "COPY statements go through copyIn or copyOut", statement: name)
        default:
            var error = Connection.serverError(result, kind: .queryFailed, name: name)
            if let state = error.sqlState, state.hasPrefix("23") {
                error.kind = state == "23505" ? .alreadyExists : .constraintViolated
            } else if error.sqlState == nil, PQstatus(connection) != CONNECTION_OK {
                error.kind = .connectionFailed
            }
            throw error
        }
    }

    private static func extract(_ result: OpaquePointer) -> QueryResult {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        columns.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            columns.append(PQfname(result, Int32(column)).map { String(cString: $0) } ?? "?column?")
        }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                    let bytes = UnsafeRawBufferPointer(
                        start: PQgetvalue(result, Int32(row), Int32(column)), count: length)
                    values.append(String(decoding: bytes, as: UTF8.self))
                }
            }
            rows.append(values)
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return QueryResult(columns: columns, rows: rows, affectedRows: affected)
    }

    static func serverError(_ result: OpaquePointer, kind: PostgresError.Kind, name: String?) -> PostgresError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { String(cString: $0) }
        }
        let message = field(CLibPQ_DIAG_MESSAGE_PRIMARY) ?? trimmed(PQresultErrorMessage(result))
        var detail = field(CLibPQ_DIAG_MESSAGE_DETAIL)
        if let hint = field(CLibPQ_DIAG_MESSAGE_HINT) {
            detail = detail.map { "\($0) Hint: \(hint)" } ?? "Hint: \(hint)"
        }
        return PostgresError(
            kind, message.isEmpty ? "the server reported an error" : message,
            sqlState: field(CLibPQ_DIAG_SQLSTATE), detail: detail, statement: name,
            constraint: field(CLibPQ_DIAG_CONSTRAINT_NAME), table: field(CLibPQ_DIAG_TABLE_NAME),
            column: field(CLibPQ_DIAG_COLUMN_NAME))
    }

    private func connectionError(_ connection: OpaquePointer, kind: PostgresError.Kind, name: String?) -> PostgresError
    {
        let message = Connection.trimmed(PQerrorMessage(connection))
        let broken = PQstatus(connection) != CONNECTION_OK
        return PostgresError(
            broken ? .connectionFailed : kind, message.isEmpty ? "no result from the server" : message,
            statement: name)
    }

    static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        var string = String(cString: text)
        while let last = string.last, last.isWhitespace { string.removeLast() }
        return string
    }

    /// Reads and frees every pending result, ending any COPY left open.
    func drain(_ connection: OpaquePointer) {
        while let result = PQgetResult(connection) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_COPY_IN || status == PGRES_COPY_BOTH {
                _ = PQputCopyEnd(connection, "COPY abandoned by the client")
            } else if status == PGRES_COPY_OUT {
                var buffer: UnsafeMutablePointer<CChar>?
                while PQgetCopyData(connection, &buffer, 0) > 0 {
                    PQfreemem(buffer)
                    buffer = nil
                }
            }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }

    /// Quotes a name for use as an SQL identifier (`PQescapeIdentifier`), for the few
    /// statements where names cannot be parameters, such as `CREATE DATABASE`.
    public func quoteIdentifier(_ name: String) throws -> String {
        let connection = try liveHandle()
        guard !name.utf8.contains(0) else { throw PostgresError(.invalidValue, "an identifier contains NUL") }
        let utf8 = Array(name.utf8)
        let escaped = utf8.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQescapeIdentifier(connection, $0.baseAddress, $0.count) }
        }
        guard let escaped else { throw PostgresError(.invalidValue, Connection.trimmed(PQerrorMessage(connection))) }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    // MARK: Transactions

    /// Runs `body` inside `BEGIN ... COMMIT`, rolling back when it throws or when a
    /// statement inside failed. Nested calls use a savepoint.
    @discardableResult
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try runTransaction(begin: "BEGIN", body)
    }

    /// Runs `body` inside `BEGIN READ ONLY ... COMMIT`. Nested inside another transaction it
    /// becomes a savepoint of that transaction (and so is as writable as the outer one).
    @discardableResult
    public func readOnlyTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try runTransaction(begin: "BEGIN READ ONLY", body)
    }

    /// Runs `body` inside `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY ... COMMIT`: every
    /// statement in it, however long it runs, sees the one snapshot taken by its first
    /// statement (a long read such as a person's whole export stays consistent). Nested
    /// inside another transaction it becomes a savepoint of that transaction.
    @discardableResult
    public func snapshotTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try runTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    private func runTransaction<T>(begin: String, _ body: (Connection) throws -> T) throws -> T {
        let connection = try liveHandle()
        if isInTransaction {
            savepointDepth += 1
            defer { savepointDepth -= 1 }
            let savepoint = "sleepledger_savepoint_\(savepointDepth)"
            try execute("SAVEPOINT \(savepoint)", name: "transaction.savepoint")
            do {
                let value = try body(self)
                try execute("RELEASE SAVEPOINT \(savepoint)", name: "transaction.release")
                return value
            } catch {
                _ = try? execute("ROLLBACK TO SAVEPOINT \(savepoint)", name: "transaction.rollbackToSavepoint")
                _ = try? execute("RELEASE SAVEPOINT \(savepoint)", name: "transaction.release")
                throw error
            }
        }
        // Prepared like any statement a session repeats: the server keeps BEGIN and
        // COMMIT parsed, as it does for the statements between them.
        try executePrepared(begin, [], name: "transaction.begin")
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        if PQtransactionStatus(connection) == PQTRANS_INERROR {
            rollbackQuietly()
            throw PostgresError(
                .queryFailed, "the transaction was aborted by an earlier failed statement and was rolled back",
                statement: "transaction.commit")
        }
        do {
            try executePrepared("COMMIT", [], name: "transaction.commit")
        } catch {
            if isInTransaction { rollbackQuietly() }
            throw error
        }
        return value
    }

    func rollbackQuietly() {
        guard isOpen else { return }
        _ = try? execute("ROLLBACK", name: "transaction.rollback")
    }

    // MARK: COPY

    /// Runs `COPY ... FROM STDIN` (text format) and streams the rows `produce` writes.
    /// When `produce` throws, the COPY is aborted (nothing is stored) and the error is
    /// rethrown. Returns the number of rows the server stored.
    @discardableResult
    public func copyIn(_ sql: String, name: String? = nil, _ produce: (CopyWriter) throws -> Void) throws -> Int {
        let connection = try liveHandle()
        try startCopy(sql, expecting: PGRES_COPY_IN, connection: connection, name: name)
        let writer = CopyWriter { bytes in
            let status = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    PQputCopyData(connection, $0.baseAddress, Int32($0.count))
                }
            }
            guard status == 1 else {
                throw PostgresError(.copyFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
            }
        }
        do {
            try produce(writer)
            try writer.flush()
        } catch {
            _ = PQputCopyEnd(connection, "COPY aborted by the client")
            drain(connection)
            throw error
        }
        guard PQputCopyEnd(connection, nil) == 1 else {
            let error = PostgresError(.copyFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
            drain(connection)
            throw error
        }
        return try finishCopy(connection: connection, name: name)
    }

    /// Runs `COPY ... TO STDOUT` and hands `consume` each row exactly as the server sent it
    /// (text format: one row per call, ending in a newline; see ``CopyText/splitRow(_:)``).
    /// The buffer is valid only during the call. When `consume` throws, the COPY is
    /// cancelled and the error rethrown. Returns the number of rows received.
    @discardableResult
    public func copyOut(
        _ sql: String, name: String? = nil, _ consume: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int {
        let connection = try liveHandle()
        try startCopy(sql, expecting: PGRES_COPY_OUT, connection: connection, name: name)
        var consumerError: (any Error)?
        var transferError: PostgresError?
        var rows = 0
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(connection, &buffer, 0)
            if length > 0, let buffer {
                defer { PQfreemem(buffer) }
                guard consumerError == nil else { continue }
                do {
                    try consume(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
                    rows += 1
                } catch {
                    consumerError = error
                    cancelRunningStatement(connection)
                }
            } else if length == -1 {
                break
            } else {
                transferError = PostgresError(
                    .copyFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
                break
            }
        }
        do {
            _ = try finishCopy(connection: connection, name: name)
        } catch {
            if consumerError == nil, transferError == nil { transferError = error as? PostgresError }
        }
        if let consumerError { throw consumerError }
        if let transferError { throw transferError }
        return rows
    }

    func startCopy(_ sql: String, expecting: ExecStatusType, connection: OpaquePointer, name: String?) throws {
        guard let result = PQexec(connection, sql) else {
            throw connectionError(connection, kind: .copyFailed, name: name)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        if status == expecting { return }
        if status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE || status == PGRES_NONFATAL_ERROR {
            throw Connection.serverError(result, kind: .copyFailed, name: name)
        }
        drain(connection)
        let wanted = expecting == PGRES_COPY_IN ? "COPY ... FROM STDIN" : "COPY ... TO STDOUT"
        throw PostgresError(.invalidUse, "the statement is not a \(wanted)", statement: name)
    }

    func finishCopy(connection: OpaquePointer, name: String?) throws -> Int {
        var failure: PostgresError?
        var count = 0
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK {
                count = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
            } else if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
                failure = failure ?? PostgresError(.copyFailed, "COPY did not finish", statement: name)
                drain(connection)
                break
            } else if failure == nil {
                failure = Connection.serverError(result, kind: .copyFailed, name: name)
            }
        }
        if let failure { throw failure }
        return count
    }

    private func cancelRunningStatement(_ connection: OpaquePointer) {
        guard let cancel = PQgetCancel(connection) else { return }
        defer { PQfreeCancel(cancel) }
        var errorBuffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &errorBuffer, Int32(errorBuffer.count))
    }

    // MARK: Advisory locks

    /// Takes the session-level advisory lock `key` if free (`pg_try_advisory_lock`); held
    /// until ``advisoryUnlock(_:)`` or the end of the session. Scoped to this database.
    public func tryAdvisoryLock(_ key: Int64) throws -> Bool {
        try execute("SELECT pg_try_advisory_lock($1::bigint)", [.int64(key)], name: "advisoryLock.try")
            .single().bool(0) ?? false
    }

    /// Waits for and takes the session-level advisory lock `key` (`pg_advisory_lock`).
    public func advisoryLock(_ key: Int64) throws {
        try execute("SELECT pg_advisory_lock($1::bigint)", [.int64(key)], name: "advisoryLock.wait")
    }

    /// Releases one hold of the session-level advisory lock `key`; `false` if it was not held.
    @discardableResult
    public func advisoryUnlock(_ key: Int64) throws -> Bool {
        try execute("SELECT pg_advisory_unlock($1::bigint)", [.int64(key)], name: "advisoryLock.unlock")
            .single().bool(0) ?? false
    }

    /// Takes the transaction-level advisory lock `key` if free
    /// (`pg_try_advisory_xact_lock`); released at commit or rollback. Call inside a transaction.
    public func tryAdvisoryTransactionLock(_ key: Int64) throws -> Bool {
        try execute("SELECT pg_try_advisory_xact_lock($1::bigint)", [.int64(key)], name: "advisoryLock.tryTransaction")
            .single().bool(0) ?? false
    }
}
