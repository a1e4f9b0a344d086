import CLibPQ

extension Connection {
    /// Runs `statements` as one transaction in one round trip: `BEGIN` (`BEGIN READ ONLY`
    /// when `readOnly`), the statements, `COMMIT`, sent together in libpq's pipeline mode
    /// and read back afterwards. The server runs them one after another exactly as if
    /// each came alone, so a statement sees what the ones before it did (a setting, a row
    /// written); only the client's wait between them is saved, and with it a round trip
    /// and two context switches per statement.
    ///
    /// Statements run prepared, as with ``executePrepared(_:_:name:)`` (the first use of
    /// a text on this session prepares it first, in a round trip of its own), except those
    /// whose ``PipelinedStatement/isPrepared`` is false, which are sent as unnamed
    /// statements in the same round trip (`PQsendQueryParams`). Returns the
    /// statements' results in order. When one fails, the statements after it and the
    /// `COMMIT` are not run, the transaction is rolled back and that statement's error is
    /// thrown (classified as ``execute(_:_:name:)`` does). Not inside another transaction
    /// (`invalidUse`).
    public func pipelinedTransaction(_ statements: [PipelinedStatement], readOnly: Bool = false) throws
        -> [QueryResult]
    {
        let connection = try liveHandle()
        guard !isInTransaction else {
            throw PostgresError(
                .invalidUse, "a pipelined transaction cannot run inside another transaction",
                statement: statements.first?.name)
        }
        let all =
            [PipelinedStatement(readOnly ? "BEGIN READ ONLY" : "BEGIN", name: "transaction.begin")] + statements
            + [PipelinedStatement("COMMIT", name: "transaction.commit")]
        let prepared = try all.map { statement in
            statement.isPrepared
                ? try preparedStatement(statement.sql, parameterCount: statement.parameters.count, name: statement.name)
                : nil
        }

        guard PQenterPipelineMode(connection) == 1 else {
            throw PostgresError(.invalidUse, Connection.trimmed(PQerrorMessage(connection)), statement: all[1].name)
        }
        var failure: PostgresError?
        var sent = 0
        for (statement, name) in zip(all, prepared) {
            do {
                guard try send(statement, prepared: name, on: connection) else {
                    failure = connectionFailure(connection, statement: statement.name)
                    break
                }
            } catch {
                failure = error as? PostgresError ?? PostgresError(.invalidValue, "\(error)", statement: statement.name)
                break
            }
            sent += 1
        }
        // What was sent runs (up to a failure); a transaction left open is rolled back below.
        if PQpipelineSync(connection) != 1 {
            failure = failure ?? connectionFailure(connection, statement: all[0].name)
        }

        var results: [QueryResult] = []
        results.reserveCapacity(statements.count)
        var isBroken = false
        for (index, statement) in all.prefix(sent).enumerated() {
            guard let first = PQgetResult(connection) else {
                // No result at all: the connection is gone.
                failure = failure ?? connectionFailure(connection, statement: statement.name)
                isBroken = true
                break
            }
            if PQresultStatus(first) == PGRES_PIPELINE_ABORTED {
                PQclear(first)  // skipped after an earlier failure
            } else {
                do {
                    let result = try collect(first, connection: connection, name: statement.name)
                    if index >= 1 && index <= statements.count { results.append(result) }
                } catch {
                    failure = failure ?? (error as? PostgresError)
                }
            }
            while let extra = PQgetResult(connection) { PQclear(extra) }
        }
        if !isBroken {
            // The pipeline's end (PGRES_PIPELINE_SYNC).
            while let result = PQgetResult(connection) {
                let isSync = PQresultStatus(result) == PGRES_PIPELINE_SYNC
                PQclear(result)
                if isSync { break }
            }
        }
        if PQexitPipelineMode(connection) != 1 {
            failure = failure ?? connectionFailure(connection, statement: all[0].name)
            close()
        }
        if let failure {
            if isInTransaction { rollbackQuietly() }
            throw failure
        }
        return results
    }

    /// Sends `statement` into the pipeline: as prepared statement `prepared`, or unnamed
    /// when it is `nil`. Whether libpq took it.
    private func send(_ statement: PipelinedStatement, prepared: String?, on connection: OpaquePointer) throws -> Bool {
        try withParameterValues(statement.parameters, name: statement.name) { buffer in
            let count = Int32(buffer.count)
            guard let prepared else {
                return PQsendQueryParams(connection, statement.sql, count, nil, buffer.baseAddress, nil, nil, 0) == 1
            }
            return PQsendQueryPrepared(connection, prepared, count, buffer.baseAddress, nil, nil, 0) == 1
        }
    }

    private func connectionFailure(_ connection: OpaquePointer, statement: String) -> PostgresError {
        let message = Connection.trimmed(PQerrorMessage(connection))
        return PostgresError(
            .connectionFailed, message.isEmpty ? "no result from the server" : message, statement: statement)
    }
}
