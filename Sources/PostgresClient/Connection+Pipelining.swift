import CLibPQ
import Glibc

/// Lower-level steps used by ``StagingPipeline``: a COPY that stays open across calls,
/// and a statement sent without waiting for its result, so the server can work while the
/// caller keeps reading its input. Only one of the two may be in progress at a time.
extension Connection {
    /// Starts `COPY ... FROM STDIN`; feed it with ``putCopyData(_:name:)``.
    public func beginCopyIn(_ sql: String, name: String?) throws {
        let connection = try liveHandle()
        try startCopy(sql, expecting: PGRES_COPY_IN, connection: connection, name: name)
    }

    /// Sends bytes of COPY text into the open COPY.
    public func putCopyData(_ bytes: [UInt8], name: String?) throws {
        let connection = try liveHandle()
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32($0.count)) }
        }
        guard status == 1 else {
            throw PostgresError(.copyFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
        }
    }

    /// Ends the open COPY and returns the rows the server stored.
    public func endCopyIn(name: String?) throws -> Int {
        let connection = try liveHandle()
        guard PQputCopyEnd(connection, nil) == 1 else {
            let error = PostgresError(.copyFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
            drain(connection)
            throw error
        }
        return try finishCopy(connection: connection, name: name)
    }

    /// Aborts the open COPY (nothing of it is stored) and discards pending results.
    public func abortCopyIn() {
        guard let connection = try? liveHandle() else { return }
        _ = PQputCopyEnd(connection, "COPY aborted by the client")
        drain(connection)
    }

    /// Sends a statement with integer parameters and returns at once; collect its result
    /// with ``finishSentStatement(name:)``.
    public func sendStatement(_ sql: String, _ parameters: [Int64], name: String?) throws {
        let connection = try liveHandle()
        let cStrings = parameters.map { strdup(String($0)) }
        defer { for pointer in cStrings { free(pointer) } }
        let values = cStrings.map { UnsafePointer($0) }
        let sent = values.withUnsafeBufferPointer { buffer in
            PQsendQueryParams(connection, sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else {
            throw PostgresError(.queryFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
        }
    }

    /// Whether the sent statement's result has arrived (reads what the socket holds
    /// without blocking).
    public func isSentStatementDone(name: String?) throws -> Bool {
        let connection = try liveHandle()
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError(.connectionFailed, Connection.trimmed(PQerrorMessage(connection)), statement: name)
        }
        return PQisBusy(connection) == 0
    }

    /// Waits for the sent statement's result and returns it.
    public func finishSentStatement(name: String?) throws -> QueryResult {
        let connection = try liveHandle()
        guard let first = PQgetResult(connection) else {
            throw PostgresError(.queryFailed, "no result from the server", statement: name)
        }
        let outcome = Result { try collect(first, connection: connection, name: name) }
        while let extra = PQgetResult(connection) { PQclear(extra) }
        return try outcome.get()
    }
}
