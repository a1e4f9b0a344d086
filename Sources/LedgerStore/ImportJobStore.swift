import Foundation
public import PostgresClient

/// Uploads queued for import (table `import_jobs`, migration 0010): queued by the server,
/// claimed by workers, finished in the transaction of the import they ran.
public struct ImportJobStore {
    /// Where a job is.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Waiting for a worker.
        case queued
        /// A worker is importing it.
        case running
        /// Imported.
        case done
        /// The import failed; ``Job/error`` says why.
        case failed
        /// Cancelled while queued.
        case cancelled
    }

    /// One job, with the counts of the import it produced.
    public struct Job: Sendable, Hashable {
        /// The job's id: internal, one sequence for everybody (the workers', the logs').
        public var id: Int64
        /// The owner.
        public var userID: Int64
        /// The owner's import number (``ImportNumbers``), which the API and the pages call
        /// the import's id.
        public var number: Int64
        /// Where it is.
        public var state: State
        /// The name the upload gave.
        public var fileName: String
        /// The upload's content type.
        public var contentType: String?
        /// Bytes uploaded.
        public var sizeBytes: Int64
        /// SHA-256 of the bytes, lowercase hex.
        public var sha256: String
        /// The host holding the spooled bytes.
        public var spoolHost: String
        /// The spooled file's path on that host.
        public var spoolPath: String
        /// When it was queued, epoch seconds.
        public var createdAt: Int64
        /// When a worker last started it.
        public var startedAt: Int64?
        /// When it ended.
        public var finishedAt: Int64?
        /// How many times a worker started it.
        public var attempts: Int
        /// Why it failed.
        public var error: String?
        /// The import it produced, when it ran.
        public var importID: Int64?
        /// Sleep records read, samples inserted, duplicates and rejected, from that import.
        public var samplesRead: Int64?
        /// Samples stored as new.
        public var samplesInserted: Int64?
        /// Samples already stored before.
        public var samplesDuplicate: Int64?
        /// Records rejected, each with a diagnostic.
        public var samplesRejected: Int64?
        /// The import's diagnostics as stored (a JSON array).
        public var diagnosticsJSON: String?

        /// The import's four counts together, once it ran; `nil` before.
        public var sampleCounts: (read: Int64, inserted: Int64, duplicate: Int64, rejected: Int64)? {
            guard let samplesRead, let samplesInserted, let samplesDuplicate, let samplesRejected else { return nil }
            return (samplesRead, samplesInserted, samplesDuplicate, samplesRejected)
        }
    }

    /// What cancelling a job did.
    public enum Cancellation: Sendable, Hashable {
        /// It was queued and is now cancelled.
        case cancelled
        /// It already runs or ended; nothing changed.
        case tooLate(State)
        /// The user has no such job.
        case notFound
    }

    /// A worker's claim on a job (migration 0019): the job, and the token that makes the
    /// claim this worker's until its lease lapses and another worker claims the job.
    public struct Claim: Sendable, Hashable {
        /// The job's owner.
        public var userID: Int64
        /// The job's id.
        public var id: Int64
        /// The claiming worker's random token (a UUID), stored in `import_jobs.claim_token`.
        public var token: String

        /// Creates a claim.
        public init(userID: Int64, id: Int64, token: String) {
            self.userID = userID
            self.id = id
            self.token = token
        }
    }

    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    private static let selectSQL = """
        SELECT j.id, j.user_id, j.state, j.file_name, j.content_type, j.size_bytes, j.sha256, j.spool_host,
               j.spool_path, j.created_at, j.started_at, j.finished_at, j.attempts, j.error, j.import_id,
               i.samples_read, i.samples_inserted, i.samples_duplicate, i.samples_rejected, i.diagnostics::text,
               j.number
        FROM import_jobs j
        LEFT JOIN imports i ON i.user_id = j.user_id AND i.id = j.import_id
        """

    /// The partial unique index that lets a person have one queued or running job per
    /// SHA-256 (migration 0015).
    public static let pendingSHA256Index = "import_jobs_pending_sha256"

    /// Queues an upload with the user's next import number and returns its job; `nil` when the user already has a queued or
    /// running job of the same bytes (``pendingSHA256Index`` refused the insert, which waits
    /// for a simultaneous insert of the same bytes to commit or roll back), and then nothing
    /// changed. Runs in a savepoint when called inside a transaction, so the refusal leaves
    /// that transaction usable.
    public func enqueue(
        userID: Int64, fileName: String, contentType: String?, sizeBytes: Int64, sha256: String, spoolHost: String,
        spoolPath: String
    ) throws -> Job? {
        let id: Int64?
        do {
            id = try connection.transaction { connection in
                try connection.execute(
                    """
                    WITH \(ImportNumbers.nextNumber)
                    INSERT INTO import_jobs (
                        user_id, number, file_name, content_type, size_bytes, sha256, spool_host, spool_path)
                    VALUES ($1, (SELECT last_number FROM counter), $2, $3, $4, $5, $6, $7) RETURNING id
                    """,
                    [
                        .int64(userID), .text(fileName), contentType.map { .text($0) }, .int64(sizeBytes),
                        .text(sha256), .text(spoolHost), .text(spoolPath),
                    ], name: "jobs.enqueue"
                ).single("jobs.enqueue").int64(0)
            }
        } catch let error as PostgresError
            where error.kind == .alreadyExists && error.constraint == Self.pendingSHA256Index
        {
            return nil
        }
        guard let id, let job = try job(userID: userID, id: id) else {
            throw StoreError(.decodingFailed, "the queued job was not read back", statement: "jobs.enqueue")
        }
        return job
    }

    /// The user's job `id`, or `nil`.
    public func job(userID: Int64, id: Int64) throws -> Job? {
        try connection.execute(
            Self.selectSQL + " WHERE j.user_id = $1 AND j.id = $2", [.int64(userID), .int64(id)], name: "jobs.read"
        ).first.map(Self.job(from:))
    }

    /// The user's job of import number `number`, or `nil`.
    public func job(userID: Int64, number: Int64) throws -> Job? {
        try connection.execute(
            Self.selectSQL + " WHERE j.user_id = $1 AND j.number = $2", [.int64(userID), .int64(number)],
            name: "jobs.readNumber"
        ).first.map(Self.job(from:))
    }

    /// The user's jobs, newest first, at most `limit`.
    public func jobs(userID: Int64, limit: Int) throws -> [Job] {
        try connection.execute(
            Self.selectSQL + " WHERE j.user_id = $1 ORDER BY j.created_at DESC, j.id DESC LIMIT $2",
            [.int64(userID), .int(limit)], name: "jobs.list"
        ).rows.map(Self.job(from:))
    }

    /// The imports the user's jobs made: each `imports` row's id with the import number of
    /// the job that made it.
    public func jobsByImport(userID: Int64) throws -> [Int64: Int64] {
        let result = try connection.execute(
            "SELECT import_id, number FROM import_jobs WHERE user_id = $1 AND import_id IS NOT NULL", [.int64(userID)],
            name: "jobs.byImport")
        var jobs: [Int64: Int64] = [:]
        for row in result.rows {
            if let importID = try row.int64(0), let id = try row.int64(1) { jobs[importID] = id }
        }
        return jobs
    }

    /// How many of the user's jobs wait or run.
    public func pendingCount(userID: Int64) throws -> Int {
        try connection.execute(
            "SELECT count(*) FROM import_jobs WHERE user_id = $1 AND state IN ('queued', 'running')",
            [.int64(userID)], name: "jobs.pending"
        ).single().int(0) ?? 0
    }

    /// The user's earlier job with the same bytes that is waiting, running or done, if any.
    public func sameUpload(userID: Int64, sha256: String) throws -> Job? {
        try connection.execute(
            Self.selectSQL
                + " WHERE j.user_id = $1 AND j.sha256 = $2 AND j.state IN ('queued', 'running', 'done')"
                + " ORDER BY j.created_at, j.id LIMIT 1",
            [.int64(userID), .text(sha256)], name: "jobs.sameUpload"
        ).first.map(Self.job(from:))
    }

    /// Cancels the user's job of import number `number` if it still waits.
    public func cancel(userID: Int64, number: Int64) throws -> Cancellation {
        let result = try connection.execute(
            """
            UPDATE import_jobs SET state = 'cancelled', finished_at = now()
            WHERE user_id = $1 AND number = $2 AND state = 'queued'
            """, [.int64(userID), .int64(number)], name: "jobs.cancel")
        if result.affectedRows > 0 { return .cancelled }
        guard let job = try job(userID: userID, number: number) else { return .notFound }
        return .tooLate(job.state)
    }

    /// Deletes every job of the user and returns them as they were (a user's removal: the
    /// caller removes their spool files once the deletion committed).
    public func removeAll(userID: Int64) throws -> [Job] {
        let jobs = try connection.execute(
            Self.selectSQL + " WHERE j.user_id = $1 ORDER BY j.created_at, j.id FOR UPDATE OF j",
            [.int64(userID)], name: "jobs.lockForRemoval"
        ).rows.map(Self.job(from:))
        try connection.execute("DELETE FROM import_jobs WHERE user_id = $1", [.int64(userID)], name: "jobs.removeAll")
        return jobs
    }

    /// Claims the oldest job a worker on `host` may run (any host's when `anyHost`: the
    /// spool folder is shared), waiting or running with a lapsed lease, under a new random
    /// token, with a lease of `leaseSeconds` from now (the database's clock), which
    /// ``renew(_:leaseSeconds:)`` extends. `nil` when nothing waits.
    public func claim(host: String, anyHost: Bool, leaseSeconds: Double) throws -> Claim? {
        let token = UUID().uuidString.lowercased()
        guard
            let row = try connection.execute(
                "SELECT user_id, id FROM sleepledger_claim_import_job($1, $2, $3::uuid, $4)",
                [.text(host), .bool(anyHost), .text(token), .double(leaseSeconds)], name: "jobs.claim"
            ).first, let userID = try row.int64(0), let id = try row.int64(1)
        else { return nil }
        return Claim(userID: userID, id: id, token: token)
    }

    /// Extends `claim`'s lease to `leaseSeconds` from now; `false` when the claim is no
    /// longer the caller's (the job ended, or another worker claimed it after the lease
    /// lapsed). Run as the job's owner, in a transaction of its own.
    public func renew(_ claim: Claim, leaseSeconds: Double) throws -> Bool {
        try connection.execute(
            """
            UPDATE import_jobs SET claimed_until = now() + make_interval(secs => $4)
            WHERE user_id = $1 AND id = $2 AND state = 'running' AND claim_token = $3::uuid
            """, [.int64(claim.userID), .int64(claim.id), .text(claim.token), .double(leaseSeconds)],
            name: "jobs.renew"
        ).affectedRows > 0
    }

    /// The spool files on `host` that waiting or running jobs still need (any user's).
    public func spoolFilesInUse(host: String) throws -> Set<String> {
        Set(
            try connection.execute(
                "SELECT * FROM sleepledger_spool_files_in_use($1)", [.text(host)], name: "jobs.spoolFilesInUse"
            ).rows.compactMap { try $0.string(0) })
    }

    /// The whole queue's depth and age, across users (through
    /// `sleepledger_import_queue_statistics`, migration 0012, which returns only these
    /// numbers): jobs waiting, jobs running, and seconds since the oldest waiting job was
    /// queued (0 when none waits).
    public func statistics() throws -> (queued: Int, running: Int, oldestQueuedSeconds: Double) {
        let row = try connection.execute(
            "SELECT queued, running, oldest_queued_seconds FROM sleepledger_import_queue_statistics()",
            name: "jobs.statistics"
        ).single("jobs.statistics")
        return (try row.int(0) ?? 0, try row.int(1) ?? 0, try row.double(2) ?? 0)
    }

    /// Ends a job under `claim`: done or failed, with the import it produced and the
    /// reason for a failure, at `endedAt` (epoch seconds with their fraction, taken by the
    /// caller when the job ended; never before the job started). `false` when the claim is
    /// no longer the caller's (its lease lapsed and another worker claimed the job), and
    /// then nothing changed.
    ///
    /// The time is a parameter, not `clock_timestamp()`: a distributed database refuses
    /// volatile functions in an UPDATE (docs/operations.md, "Schema rules").
    public func finish(_ claim: Claim, state: State, importID: Int64?, error: String?, endedAt: Double) throws -> Bool {
        try connection.execute(
            """
            UPDATE import_jobs SET state = $3, finished_at = greatest(to_timestamp($7::float8), started_at),
                import_id = $4, error = $5
            WHERE user_id = $1 AND id = $2 AND state = 'running' AND claim_token = $6::uuid
            """,
            [
                .int64(claim.userID), .int64(claim.id), .text(state.rawValue), importID.map { .int64($0) },
                error.map { .text(String($0.prefix(2000))) }, .text(claim.token), .double(endedAt),
            ], name: "jobs.finish"
        ).affectedRows > 0
    }

    /// Puts a job claimed under `claim` back in the queue, as if never started (another
    /// import of the user held the user's import lock); `false` when the claim is no
    /// longer the caller's, and then nothing changed.
    @discardableResult
    public func requeue(_ claim: Claim) throws -> Bool {
        try connection.execute(
            """
            UPDATE import_jobs SET state = 'queued', started_at = NULL, claim_token = NULL, claimed_until = NULL,
                attempts = greatest(attempts - 1, 0)
            WHERE user_id = $1 AND id = $2 AND state = 'running' AND claim_token = $3::uuid
            """, [.int64(claim.userID), .int64(claim.id), .text(claim.token)], name: "jobs.requeue"
        ).affectedRows > 0
    }

    static func job(from row: Row) throws -> Job {
        guard let id = try row.int64(0), let userID = try row.int64(1),
            let state = try row.string(2).flatMap(State.init(rawValue:)), let fileName = try row.string(3),
            let size = try row.int64(5), let sha256 = try row.string(6), let host = try row.string(7),
            let path = try row.string(8), let createdAt = try row.epochSeconds(9), let attempts = try row.int(12),
            let number = try row.int64(20)
        else { throw StoreError(.decodingFailed, "an import_jobs row has a NULL column", statement: "jobs.read") }
        return Job(
            id: id, userID: userID, number: number, state: state, fileName: fileName, contentType: try row.string(4),
            sizeBytes: size, sha256: sha256, spoolHost: host, spoolPath: path, createdAt: createdAt,
            startedAt: try row.epochSeconds(10), finishedAt: try row.epochSeconds(11), attempts: attempts,
            error: try row.string(13), importID: try row.int64(14), samplesRead: try row.int64(15),
            samplesInserted: try row.int64(16), samplesDuplicate: try row.int64(17),
            samplesRejected: try row.int64(18), diagnosticsJSON: try row.string(19))
    }
}
