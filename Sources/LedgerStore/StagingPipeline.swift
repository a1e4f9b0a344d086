import SleepCore

/// Moves staged samples into `sleep_samples` in batches while the input is still being
/// read, so the server's work (inserting, index and foreign-key checks) overlaps the
/// reading instead of following it.
///
/// One connection and one transaction, alternating: rows are COPYed into the staging
/// table; once a batch holds `batchBytes` of COPY text the COPY is ended and the merge
/// statement is sent without waiting. Rows read meanwhile are kept in memory (at most
/// two batches, then the reader waits for the merge). When the merge's result
/// arrives, the staging table is emptied and a new COPY starts with the kept rows.
final class StagingPipeline {
    /// COPY text per batch before a merge is sent.
    let batchBytes: Int
    /// Rows kept while a merge runs before the reader waits for it: two batches.
    var maximumPendingBytes: Int { 2 * batchBytes }

    static let copySQL = "COPY import_staging FROM STDIN"
    /// Inserts the staged rows; returns how many were new and the earliest wake day among
    /// them (the join only runs when some staged rows were not new).
    static let mergeSQL = """
        WITH inserted AS (
            INSERT INTO sleep_samples
                (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset, import_id)
            SELECT $1, source, start_at, end_at, stage, time_zone, printed_utc_offset, $2
            FROM import_staging
            ON CONFLICT DO NOTHING
            RETURNING source, start_at, end_at, stage
        ),
        counts AS (SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM import_staging) AS staged)
        SELECT counts.inserted,
            CASE WHEN counts.inserted = 0 THEN NULL
                WHEN counts.inserted = counts.staged THEN (SELECT min(wake_day) FROM import_staging)
                ELSE (SELECT min(staging.wake_day) FROM import_staging AS staging
                    JOIN inserted USING (source, start_at, end_at, stage))
            END AS earliest_wake_day
        FROM counts
        """

    private let connection: Connection
    private let parameters: [Int64]
    private var isCopyOpen = false
    private var isMergeRunning = false
    private var copiedBytes = 0
    private var pending: [UInt8] = []
    /// Samples that were new, over all batches so far.
    private(set) var inserted = 0
    /// The earliest wake day among them.
    private(set) var earliestWakeDay: LocalDate?

    init(connection: Connection, userID: Int64, importID: Int64, batchBytes: Int) {
        self.connection = connection
        self.batchBytes = batchBytes
        parameters = [userID, importID]
    }

    /// Opens the first COPY.
    func start() throws {
        try connection.beginCopyIn(Self.copySQL, name: "imports.copyStaging")
        isCopyOpen = true
    }

    /// Takes a chunk of COPY text (whole rows) from the ``CopyWriter``.
    func send(_ chunk: [UInt8]) throws {
        if isMergeRunning, try connection.isSentStatementDone(name: "imports.mergeBatch") {
            try finishMerge()
        }
        if isMergeRunning {
            pending.append(contentsOf: chunk)
            if pending.count >= maximumPendingBytes { try finishMerge() }
            return
        }
        try connection.putCopyData(chunk, name: "imports.copyStaging")
        copiedBytes += chunk.count
        if copiedBytes >= batchBytes {
            _ = try connection.endCopyIn(name: "imports.copyStaging")
            isCopyOpen = false
            try connection.sendStatement(Self.mergeSQL, parameters, name: "imports.mergeBatch")
            isMergeRunning = true
            copiedBytes = 0
        }
    }

    /// Collects the running merge, empties the staging table and reopens the COPY with
    /// the rows kept meanwhile.
    private func finishMerge() throws {
        let result = try connection.finishSentStatement(name: "imports.mergeBatch")
        isMergeRunning = false
        try record(result.single("imports.mergeBatch"))
        try connection.execute("TRUNCATE import_staging", name: "imports.emptyStaging")
        try connection.beginCopyIn(Self.copySQL, name: "imports.copyStaging")
        isCopyOpen = true
        if !pending.isEmpty {
            try connection.putCopyData(pending, name: "imports.copyStaging")
            copiedBytes = pending.count
            pending.removeAll(keepingCapacity: true)
        }
    }

    private func record(_ row: Row) throws {
        inserted += try row.int("inserted") ?? 0
        if let day = try row.date("earliest_wake_day") {
            earliestWakeDay = earliestWakeDay.map { min($0, day) } ?? day
        }
    }

    /// After the last chunk: waits for a running merge, ends the COPY and merges the rest.
    func finish() throws {
        if isMergeRunning { try finishMerge() }
        if isCopyOpen {
            _ = try connection.endCopyIn(name: "imports.copyStaging")
            isCopyOpen = false
        }
        try record(
            connection.execute(Self.mergeSQL, parameters.map { .int64($0) }, name: "imports.mergeBatch")
                .single("imports.mergeBatch"))
    }

    /// Leaves the connection ready for `ROLLBACK` after an error: aborts the COPY or waits
    /// out the merge.
    func abandon() {
        if isCopyOpen {
            connection.abortCopyIn()
            isCopyOpen = false
        }
        if isMergeRunning {
            _ = try? connection.finishSentStatement(name: "imports.mergeBatch")
            isMergeRunning = false
        }
    }
}
