import PostgresClient
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
    /// them.
    ///
    /// Two ways in, chosen per batch by the server in the same statement:
    /// - **appended**: when no stored sample of the user ends inside the batch's span of
    ///   end times and no key repeats within the batch, every staged row is new, so a
    ///   plain `INSERT` stores them all without the per-row duplicate probe of
    ///   `ON CONFLICT` (about a quarter of the server's time per sample; the usual case
    ///   for a first import and for the new tail of a later export);
    /// - **merged**: otherwise `ON CONFLICT DO NOTHING` skips the rows already stored or
    ///   repeated, and the join finds the earliest wake day among the rows that were new.
    ///
    /// Both give exactly the rows `ON CONFLICT DO NOTHING` alone would give: a stored row
    /// with a batch row's key ends at that row's end, inside the span. The check sees
    /// this transaction's earlier batches; other transactions cannot add this user's
    /// samples meanwhile, because the loader holds the user's import lock
    /// (``ImportLock``).
    static let mergeSQL = """
        WITH batch AS (
            SELECT min(end_at) AS first_end, max(end_at) AS last_end, count(*) AS staged,
                min(wake_day) AS earliest_wake_day
            FROM import_staging
        ),
        all_new AS (
            SELECT NOT EXISTS (
                    SELECT FROM sleep_samples AS stored, batch
                    WHERE stored.user_id = $1 AND stored.end_at BETWEEN batch.first_end AND batch.last_end)
                AND NOT EXISTS (
                    SELECT FROM import_staging GROUP BY source, start_at, end_at, stage HAVING count(*) > 1)
                AS yes
        ),
        appended AS (
            INSERT INTO sleep_samples
                (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset, import_id)
            SELECT $1, source, start_at, end_at, stage, time_zone, printed_utc_offset, $2
            FROM import_staging
            WHERE (SELECT yes FROM all_new)
        ),
        merged AS (
            INSERT INTO sleep_samples
                (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset, import_id)
            SELECT $1, source, start_at, end_at, stage, time_zone, printed_utc_offset, $2
            FROM import_staging
            WHERE NOT (SELECT yes FROM all_new)
            ON CONFLICT DO NOTHING
            RETURNING source, start_at, end_at, stage
        ),
        counts AS (SELECT (SELECT count(*) FROM merged) AS merged)
        SELECT CASE WHEN all_new.yes THEN batch.staged ELSE counts.merged END AS inserted,
            CASE WHEN all_new.yes OR counts.merged = batch.staged THEN batch.earliest_wake_day
                WHEN counts.merged = 0 THEN NULL
                ELSE (SELECT min(staging.wake_day) FROM import_staging AS staging
                    JOIN merged USING (source, start_at, end_at, stage))
            END AS earliest_wake_day
        FROM batch, all_new, counts
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
        if let day = try row.localDate("earliest_wake_day") {
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
