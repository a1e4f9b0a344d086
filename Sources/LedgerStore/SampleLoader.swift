import Foundation
public import PostgresClient
import SleepCore

/// Loads one import into PostgreSQL in a single transaction, so a run that fails or is
/// killed stores nothing:
///
/// 1. `BEGIN`; take the user's import lock (``ImportLock``: its `import_locks` row
///    `FOR UPDATE`, waiting at most ``lockWaitSeconds`` for another import of the user);
///    insert the run's `imports` row as `running` and name it as the lock's holder;
/// 2. create a `TEMP` staging table (`ON COMMIT DROP`, no constraints or indexes);
/// 3. `COPY` the samples into it while the caller's reader streams them (``SampleSink``);
/// 4. `INSERT INTO sleep_samples ... SELECT ... FROM staging ON CONFLICT DO NOTHING`, so
///    samples already stored (or repeated within the input) add nothing; the difference
///    between staged and inserted rows is the duplicate count (a batch that provably holds
///    only new samples is appended without the per-row duplicate probe: see
///    `StagingPipeline.mergeSQL`). This runs in batches of
///    about 512 KiB of COPY text while the input is still being read (`StagingPipeline`),
///    so the server's inserting overlaps the reading;
/// 5. lower `rollup_state.dirty_from` to the earliest wake day among the inserted samples
///    minus one day of margin (`LookBack.firstChangedWakeDay(earliestSampleWakeDay:)`);
/// 6. give the `imports` row the person's next import number (unless it is a queued
///    upload's: ``ImportAudit/takesNumber``), only now so that the person's counter row is
///    locked for a moment, not for the whole import; set it to `succeeded` with every
///    count; `COMMIT`.
///
/// When anything throws, the transaction is rolled back; the caller then records the
/// failure with ``recordFailure(userID:audit:error:)`` in a transaction of its own.
public struct SampleLoader {
    /// The connection every call uses; not inside a transaction.
    public let connection: Connection

    /// How long an import waits for the user's import lock while another import of the
    /// same user (or the user's removal) holds it, in seconds, before it gives up with
    /// ``StoreError/Kind/busy``. Imports of one user run one after the other (a second
    /// one waits for the first to commit or roll back), imports of different users side
    /// by side. The merge relies on it: no other transaction adds this user's samples
    /// while a batch is checked. Default 60.
    public var lockWaitSeconds: Double

    /// The default of ``lockWaitSeconds``: 60 seconds.
    public static let defaultLockWaitSeconds: Double = 60

    /// COPY text per batch merged while the input is still being read. Default 512 KiB
    /// (about 5 000 samples); tests use small values to exercise many batches.
    public var batchBytes: Int

    /// The wall clock, in epoch seconds with their fraction, read once when an import
    /// ends: the `imports` row's `finished_at` (never before its `started_at`). Passed in
    /// rather than read with `clock_timestamp()`, which a distributed database refuses in
    /// an UPDATE. Default: the system's clock.
    public var wallClock: @Sendable () -> Double

    /// The system's wall clock, in epoch seconds with their fraction: the default of
    /// ``wallClock`` (and of the import queue's).
    public static let systemWallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Creates a loader over `connection`.
    public init(
        connection: Connection, batchBytes: Int = 512 << 10,
        lockWaitSeconds: Double = SampleLoader.defaultLockWaitSeconds,
        wallClock: @escaping @Sendable () -> Double = SampleLoader.systemWallClock
    ) {
        self.connection = connection
        self.batchBytes = max(1, batchBytes)
        self.lockWaitSeconds = lockWaitSeconds.isNaN ? Self.defaultLockWaitSeconds : max(0, lockWaitSeconds)
        self.wallClock = wallClock
    }

    /// Runs one import. `read` gets a sink for the samples, streams them into it, and
    /// returns the audit (counts from the reader's report); throwing from it rolls back
    /// everything. Returns what was stored.
    ///
    /// When another transaction holds the user's import lock, `onLockWait` is called
    /// with what holds it (`nil` when that cannot be told) before the wait; when the wait
    /// runs out, ``StoreError/Kind/busy`` is thrown and nothing was read or written.
    /// Throws ``StoreError/Kind/notFound`` when the user no longer exists.
    public func load(
        userID: Int64, userTimeZone: String?, audit start: ImportAudit,
        onLockWait: (ImportLockHolder?) -> Void = { _ in },
        _ read: (SampleSink) throws -> ImportAudit
    ) throws -> ImportOutcome {
        let clock = ContinuousClock()
        let began = clock.now
        return try connection.transaction { connection in
            let lock = ImportLock(connection: connection)
            guard try lock.acquire(userID: userID, waitSeconds: lockWaitSeconds, onWait: onLockWait) else {
                throw StoreError(.notFound, "the user no longer exists", statement: "imports.lockUser")
            }
            let importID = try connection.execute(
                """
                INSERT INTO imports (user_id, file_name, from_standard_input, status)
                VALUES ($1, $2, $3, 'running') RETURNING id
                """, [.int64(userID), .text(start.fileName), .bool(start.isFromStandardInput)],
                name: "imports.start"
            ).single("imports.start").int64(0)
            guard let importID else { throw StoreError(.decodingFailed, "no import id", statement: "imports.start") }
            try lock.announce(.importing(importID: importID, fileName: start.fileName), userID: userID)
            try connection.execute(
                """
                CREATE TEMP TABLE import_staging (
                    source text, start_at timestamptz, end_at timestamptz, stage text,
                    time_zone text, printed_utc_offset integer, wake_day date
                ) ON COMMIT DROP
                """, name: "imports.createStaging")
            var audit = start
            let pipeline = StagingPipeline(
                connection: connection, userID: userID, importID: importID, batchBytes: batchBytes)
            try pipeline.start()
            do {
                let writer = CopyWriter(send: pipeline.send)
                let sink = SampleSink(writer: writer, userTimeZone: userTimeZone)
                audit = try read(sink)
                audit.samplesAccepted = sink.count
                try writer.flush()
                try pipeline.finish()
            } catch {
                pipeline.abandon()
                throw error
            }
            let inserted = pipeline.inserted
            let earliestWakeDay = pipeline.earliestWakeDay
            let dirtyFrom = earliestWakeDay.map { LookBack.firstChangedWakeDay(earliestSampleWakeDay: $0) }
            if let dirtyFrom {
                try connection.execute(
                    """
                    INSERT INTO rollup_state (user_id, dirty_from, updated_at) VALUES ($1, $2, now())
                    ON CONFLICT (user_id) DO UPDATE
                    SET dirty_from = least(rollup_state.dirty_from, excluded.dirty_from), updated_at = now()
                    """, [.int64(userID), .date(dirtyFrom)], name: "imports.markRollupsDirty")
            }
            let duplicates = audit.samplesAccepted - inserted
            audit.durationSeconds = Self.seconds(clock.now - began)
            try update(userID: userID, importID: importID, audit: audit)
            let number = start.takesNumber ? try takeNumber(userID: userID, importID: importID) : nil
            try connection.execute(
                """
                UPDATE imports SET status = 'succeeded', finished_at = greatest(to_timestamp($6::float8), started_at),
                    samples_inserted = $3, samples_duplicate = $4, dirty_from = $5
                WHERE user_id = $1 AND id = $2
                """,
                [
                    .int64(userID), .int64(importID), .int(inserted), .int(duplicates), dirtyFrom.map { .date($0) },
                    .double(wallClock()),
                ], name: "imports.succeed")
            return ImportOutcome(
                importID: importID, number: number, inserted: inserted, duplicates: duplicates, dirtyFrom: dirtyFrom)
        }
    }

    /// Gives the run's `imports` row the person's next import number and returns it.
    private func takeNumber(userID: Int64, importID: Int64) throws -> Int64 {
        let number = try connection.execute(
            "WITH \(ImportNumbers.nextNumber) UPDATE imports SET number = (SELECT last_number FROM counter) "
                + "WHERE user_id = $1 AND id = $2 RETURNING number",
            [.int64(userID), .int64(importID)], name: "imports.takeNumber"
        ).single("imports.takeNumber").int64(0)
        guard let number else { throw StoreError(.decodingFailed, "no import number", statement: "imports.takeNumber") }
        return number
    }

    private func update(userID: Int64, importID: Int64, audit: ImportAudit) throws {
        try connection.execute(
            """
            UPDATE imports SET size_bytes = $3, sha256 = $4, kind = $5, entry_name = $6, records_seen = $7,
                samples_read = $8, samples_accepted = $9, samples_rejected = $10, stage_counts = $11::jsonb,
                earliest_start_at = $12, latest_end_at = $13, warnings = $14::jsonb, diagnostics = $15::jsonb,
                diagnostics_not_kept = $16, duration_seconds = $17
            WHERE user_id = $1 AND id = $2
            """,
            [
                .int64(userID), .int64(importID), audit.sizeBytes.map { .int64($0) }, audit.sha256.map { .text($0) },
                audit.kind.map { .text($0) }, audit.entryName.map { .text($0) }, .int(audit.recordsSeen),
                .int(audit.samplesRead), .int(audit.samplesAccepted), .int(audit.samplesRejected),
                .json(audit.stageCountsJSON), audit.earliestStart.map { .timestamp(epochSeconds: $0) },
                audit.latestEnd.map { .timestamp(epochSeconds: $0) }, .json(audit.warningsJSON),
                .json(audit.diagnosticsJSON), .int(audit.diagnosticsNotKept), .double(max(0, audit.durationSeconds)),
            ], name: "imports.recordAudit")
    }

    /// Records a failed run in a transaction of its own (call it after ``load`` threw and
    /// rolled back): an `imports` row with status `failed`, the error message and whatever
    /// the audit knows. Returns the row's id.
    @discardableResult
    public func recordFailure(userID: Int64, audit: ImportAudit, error message: String) throws -> Int64 {
        try connection.transaction { connection in
            let importID = try connection.execute(
                """
                INSERT INTO imports (user_id, file_name, from_standard_input, status, finished_at, error)
                VALUES ($1, $2, $3, 'failed', now(), $4) RETURNING id
                """, [.int64(userID), .text(audit.fileName), .bool(audit.isFromStandardInput), .text(message)],
                name: "imports.recordFailure"
            ).single("imports.recordFailure").int64(0)
            guard let importID else {
                throw StoreError(.decodingFailed, "no import id", statement: "imports.recordFailure")
            }
            var counts = audit
            counts.samplesAccepted = min(audit.samplesAccepted, max(0, audit.samplesRead - audit.samplesRejected))
            try update(userID: userID, importID: importID, audit: counts)
            if audit.takesNumber { _ = try takeNumber(userID: userID, importID: importID) }
            return importID
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
