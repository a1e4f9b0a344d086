import Foundation
import Glibc
import HealthImport
public import LedgerStore
import PostgresClient

/// Uploads waiting to be imported: queued by the server once their bytes are spooled,
/// run by workers (threads of the server, or `sleepledger worker`), each exactly once.
///
/// Every call runs as the session's role inside ``LedgerSession/asUser(_:_:)`` where it
/// concerns one user, so on the server's role row-level security applies to all of it.
public struct ImportQueue {
    /// An upload whose bytes are spooled.
    public struct Upload: Sendable, Hashable {
        /// The name it came with (a multipart file name), or `upload`.
        public var fileName: String
        /// Its content type.
        public var contentType: String?
        /// Bytes received.
        public var sizeBytes: Int64
        /// SHA-256 of the bytes, lowercase hex.
        public var sha256: String
        /// The spooled file.
        public var spoolPath: String

        /// Creates an upload description.
        public init(fileName: String, contentType: String?, sizeBytes: Int64, sha256: String, spoolPath: String) {
            self.fileName = fileName
            self.contentType = contentType
            self.sizeBytes = sizeBytes
            self.sha256 = sha256
            self.spoolPath = spoolPath
        }
    }

    /// What queuing an upload did.
    public enum Queued: Sendable, Hashable {
        /// A new job.
        case queued(ImportJobStore.Job)
        /// The same bytes were uploaded before (waiting, running or imported): that job.
        case sameAsEarlier(ImportJobStore.Job)
    }

    /// The most Unicode scalars of a file name a job keeps: `import_jobs.file_name`'s check
    /// counts code points (`char_length`), not the characters Swift counts.
    public static let maximumFileNameScalars = 255

    /// `name` as a job stores it: its first ``maximumFileNameScalars`` Unicode scalars (a
    /// longer name is cut, never refused), or `upload` when it is empty.
    public static func storedFileName(_ name: String) -> String {
        let scalars = name.unicodeScalars
        guard scalars.count > maximumFileNameScalars || name.isEmpty else { return name }
        let cut = String(String.UnicodeScalarView(scalars.prefix(maximumFileNameScalars)))
        return cut.isEmpty ? "upload" : cut
    }

    /// How often a job is started before it is failed instead of started again.
    public static let maximumAttempts = 3

    /// How long a worker's claim on a job lasts (migration 0019) and where the worker
    /// renews it while it imports. A running job whose lease lapsed is claimed again by
    /// the next worker that looks, so after a crash a job waits at most one lease.
    public struct Lease: Sendable {
        /// The lease's default length, in seconds.
        public static let defaultSeconds = 60.0

        /// How long a claim lasts from its claim or its last renewal. Default 60 s.
        public var seconds: Double
        /// Seconds between renewals while the job runs. Default a third of the lease.
        public var renewalSeconds: Double
        /// Where each renewal borrows a session for its short transaction (never the
        /// importing one, which is inside the import's transaction); `nil` renews never,
        /// so the job must end within one lease.
        public var sessions: (any SessionSource & Sendable)?
        /// Where a failed renewal is reported (it is tried again at the next interval).
        public var log: @Sendable (String) -> Void

        /// A lease of `seconds`, renewed every `renewalSeconds` (a third of it when `nil`)
        /// on sessions of `sessions`, reporting failed renewals to `log`.
        public init(
            seconds: Double = Self.defaultSeconds, renewalSeconds: Double? = nil,
            sessions: (any SessionSource & Sendable)? = nil, log: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.seconds = seconds
            self.renewalSeconds = renewalSeconds ?? seconds / 3
            self.sessions = sessions
            self.log = log
        }
    }

    /// Thrown inside a job's transaction when its finish found the claim no longer this
    /// worker's: the import it made is rolled back, the other worker's run counts.
    private struct LostClaim: Error {}

    /// The session every call uses.
    public let session: LedgerSession
    /// The host name spooled files are recorded under (workers on other hosts leave them
    /// alone unless the spool folder is shared).
    public let host: String

    /// The wall clock, in epoch seconds with their fraction, read when a job ends: its
    /// `finished_at`, passed to PostgreSQL rather than read there (a distributed database
    /// refuses `clock_timestamp()` in an UPDATE). Default: the system's clock.
    public var wallClock: @Sendable () -> Double

    /// Creates the queue over `session` for this `host`.
    public init(
        session: LedgerSession, host: String,
        wallClock: @escaping @Sendable () -> Double = SampleLoader.systemWallClock
    ) {
        self.session = session
        self.host = host
        self.wallClock = wallClock
    }

    private var store: ImportJobStore { ImportJobStore(connection: session.connection) }

    /// Queues `upload` for user `userID`, unless the same bytes came before; refuses
    /// (``ServiceError/Kind/busy``) when the user already has `maximumPending` uploads
    /// waiting or running. Of uploads of the same bytes queued at once, one makes a job and
    /// the others answer with it (``LedgerStore/ImportJobStore/enqueue(userID:fileName:contentType:sizeBytes:sha256:spoolHost:spoolPath:)``
    /// refuses the second job while the first waits or runs).
    public func enqueue(_ upload: Upload, userID: Int64, maximumPending: Int) throws(ServiceError) -> Queued {
        try ServiceError.wrapping {
            try session.asUser(userID) {
                // A refused insert means a job of the same bytes committed meanwhile: the
                // next look finds it, unless it was cancelled or failed since (then try again).
                for _ in 0..<3 {
                    if let earlier = try store.sameUpload(userID: userID, sha256: upload.sha256) {
                        return .sameAsEarlier(earlier)
                    }
                    guard try store.pendingCount(userID: userID) < maximumPending else {
                        throw ServiceError(
                            .busy,
                            "\(maximumPending) uploads already wait or run for this user; try again when one is done")
                    }
                    if let job = try store.enqueue(
                        userID: userID, fileName: Self.storedFileName(upload.fileName), contentType: upload.contentType,
                        sizeBytes: upload.sizeBytes, sha256: upload.sha256, spoolHost: host,
                        spoolPath: upload.spoolPath)
                    {
                        return .queued(job)
                    }
                }
                throw ServiceError(.busy, "the same file is being queued and ended at once; try again")
            }
        }
    }

    /// How many of the user's uploads wait or run.
    public func pendingCount(userID: Int64) throws(ServiceError) -> Int {
        try ServiceError.wrapping { try session.asUser(userID) { try store.pendingCount(userID: userID) } }
    }

    /// The user's job of import number `number` (what the API calls the import's id); an
    /// internal id or a number the user has not reached is ``ServiceError/Kind/notFound``.
    public func job(_ number: Int64, userID: Int64) throws(ServiceError) -> ImportJobStore.Job {
        guard
            let job = try ServiceError.wrapping({
                try session.asUser(userID) { try store.job(userID: userID, number: number) }
            })
        else { throw ServiceError(.notFound, "no import with id \(number)") }
        return job
    }

    /// The user's jobs, newest first, at most `limit`.
    public func jobs(userID: Int64, limit: Int) throws(ServiceError) -> [ImportJobStore.Job] {
        try ServiceError.wrapping { try session.asUser(userID) { try store.jobs(userID: userID, limit: limit) } }
    }

    /// Cancels the user's job of import number `number` while it waits;
    /// ``ServiceError/Kind/conflict`` once it runs or ended. Removes its spooled file when
    /// it is on this host.
    public func cancel(_ number: Int64, userID: Int64) throws(ServiceError) {
        let outcome = try ServiceError.wrapping {
            try session.asUser(userID) { () -> (ImportJobStore.Cancellation, ImportJobStore.Job?) in
                (try store.cancel(userID: userID, number: number), try store.job(userID: userID, number: number))
            }
        }
        switch outcome.0 {
        case .cancelled:
            if let job = outcome.1 { Spool.removeFile(of: job, onHost: host) }
        case .tooLate(let state):
            throw ServiceError(.conflict, "import \(number) is \(state.rawValue) and can no longer be cancelled")
        case .notFound:
            throw ServiceError(.notFound, "no import with id \(number)")
        }
    }

    /// The whole queue's depth and age, as counts only (no user, no file): what the
    /// server's `/metrics` shows. Any role may ask; the server's sees only these numbers.
    public struct Statistics: Sendable, Hashable {
        /// Jobs waiting for a worker, of every user and host.
        public var queued: Int
        /// Jobs a worker is importing (or whose worker died and which wait to be claimed again).
        public var running: Int
        /// Seconds since the oldest waiting job was queued; 0 when none waits.
        public var oldestQueuedSeconds: Double

        /// Creates statistics.
        public init(queued: Int, running: Int, oldestQueuedSeconds: Double) {
            self.queued = queued
            self.running = running
            self.oldestQueuedSeconds = oldestQueuedSeconds
        }
    }

    /// The whole queue's ``Statistics``, across users (migration 0012's function).
    public func statistics() throws(ServiceError) -> Statistics {
        let numbers = try ServiceError.wrapping { try store.statistics() }
        return Statistics(
            queued: numbers.queued, running: numbers.running, oldestQueuedSeconds: numbers.oldestQueuedSeconds)
    }

    /// Removes the files of `spool` that no job needs and no process holds
    /// (``Spool/sweep(minimumAgeSeconds:inUse:)``), asking this host's queued and running
    /// jobs which files they need.
    @discardableResult
    public func sweep(_ spool: Spool, minimumAgeSeconds: Double) throws(ServiceError) -> Int {
        try spool.sweep(minimumAgeSeconds: minimumAgeSeconds) { () throws(ServiceError) in
            try ServiceError.wrapping { try store.spoolFilesInUse(host: host) }
        }
    }

    /// What running one job did: the ended job and, after a done import, the person's rollup.
    public struct Run: Sendable {
        /// The job as it ended.
        public var job: ImportJobStore.Job
        /// How long the rollup after a done import took, in seconds; `nil` when none ran.
        public var rollupSeconds: Double?
        /// Why that rollup failed; `nil` when it ran (or none was due).
        public var rollupFailure: ServiceError?
    }

    /// Runs the next job as ``runNext(anyHost:options:lease:)`` does and, when its import
    /// is done, the person's rollup on the same session
    /// (``RollupService/rollUp(userID:on:now:)`` with `database`'s settings), so their
    /// summary is fresh seconds after the upload.
    ///
    /// `resuming` and `claimed` are those of ``runNext(anyHost:options:lease:resuming:claimed:)``.
    public func runNext(
        anyHost: Bool, options: ImportService.Options, lease: Lease = .init(), rollingUpWith database: LedgerDatabase,
        resuming: ImportJobStore.Claim? = nil, claimed: (ImportJobStore.Claim) -> Void = { _ in },
        now: @Sendable () -> Int64
    ) throws(ServiceError) -> Run? {
        guard
            let job = try runNext(
                anyHost: anyHost, options: options, lease: lease, resuming: resuming, claimed: claimed)
        else { return nil }
        var run = Run(job: job)
        guard job.state == .done else { return run }
        let clock = ContinuousClock()
        let started = clock.now
        do {
            try RollupService(database: database, settings: RollupSettings(userID: job.userID)).rollUp(
                userID: job.userID, on: session, now: now())
        } catch {
            run.rollupFailure = error
        }
        run.rollupSeconds = ImportService.seconds(clock.now - started)
        return run
    }

    /// Claims the oldest job this host can run under `lease`, renews the lease while it
    /// imports the job under its owner's row-level security, ends it in the same
    /// transaction (only while the claim is still this worker's: otherwise the import is
    /// rolled back and the job is left to the worker that claimed it since) and removes the
    /// spooled file. Returns the job as it is afterwards, or `nil` when nothing waits.
    ///
    /// `claimed` hears of the claim as soon as it is made. When the database is lost while
    /// the job imports (a failover: ``ServiceError/isDatabaseLost``), the import's
    /// transaction is gone and nothing about it is recorded; a worker may then call again
    /// on a new session `resuming` that claim: its lease is renewed first, and only while
    /// the claim is still this worker's and the job still running (its first run's commit
    /// did not land before the loss) is the job imported again, so it is imported once.
    public func runNext(
        anyHost: Bool, options: ImportService.Options, lease: Lease = .init(),
        resuming: ImportJobStore.Claim? = nil, claimed: (ImportJobStore.Claim) -> Void = { _ in }
    ) throws(ServiceError) -> ImportJobStore.Job? {
        let claim: ImportJobStore.Claim
        if let resuming {
            let stillOurs = try ServiceError.wrapping {
                try session.asUser(resuming.userID) { try store.renew(resuming, leaseSeconds: lease.seconds) }
            }
            guard stillOurs else {
                return try ServiceError.wrapping {
                    try session.asUser(resuming.userID) { try store.job(userID: resuming.userID, id: resuming.id) }
                }
            }
            claim = resuming
        } else {
            guard
                let fresh = try ServiceError.wrapping({
                    try store.claim(host: host, anyHost: anyHost, leaseSeconds: lease.seconds)
                })
            else { return nil }
            claim = fresh
        }
        claimed(claim)
        let renewal = lease.sessions.map { sessions in
            Self.renewal(of: claim, lease: lease, sessions: sessions)
        }
        renewal?.start()
        let outcome = Result { try session.asUser(claim.userID) { try run(claim, options: options) } }
        // After the transaction: a renewal under way may wait for its lock on the job.
        renewal?.stop()
        let job: ImportJobStore.Job?
        switch outcome {
        case .success(let ended): job = ended
        case .failure(let error) where error is LostClaim:
            job = try ServiceError.wrapping {
                try session.asUser(claim.userID) { try store.job(userID: claim.userID, id: claim.id) }
            }
        case .failure(let error): throw ServiceError(error)
        }
        if let job, job.state == .done || job.state == .failed {
            Spool.removeFile(of: job, onHost: nil)
        }
        return job
    }

    private static func renewal(
        of claim: ImportJobStore.Claim, lease: Lease, sessions: any SessionSource & Sendable
    ) -> LeaseRenewal {
        LeaseRenewal(every: lease.renewalSeconds, log: lease.log) {
            try sessions.withSession { session in
                try session.asUser(claim.userID) {
                    try ImportJobStore(connection: session.connection).renew(claim, leaseSeconds: lease.seconds)
                }
            }
        }
    }

    /// Imports the job of `claim` inside its owner's transaction and ends it; throws
    /// ``LostClaim`` when ending it found the claim gone.
    private func run(_ claim: ImportJobStore.Claim, options: ImportService.Options) throws -> ImportJobStore.Job? {
        let (userID, id) = (claim.userID, claim.id)
        guard let job = try store.job(userID: userID, id: id),
            let user = try UserStore(connection: session.connection).find(id: userID)
        else { return nil }
        func finish(_ state: ImportJobStore.State, importID: Int64? = nil, error: String? = nil) throws {
            guard try store.finish(claim, state: state, importID: importID, error: error, endedAt: wallClock()) else {
                throw LostClaim()
            }
        }
        guard job.attempts <= Self.maximumAttempts else {
            // Started and lost this often: something in it (or the database) fails
            // every time; stop retrying.
            try finish(.failed, error: "gave up after \(Self.maximumAttempts) attempts that did not finish")
            return try store.job(userID: userID, id: id)
        }
        // Read through a descriptor so that messages name the upload, never the
        // spool path.
        let descriptor = open(job.spoolPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            try finish(.failed, error: "the uploaded file is no longer in the spool folder; upload it again")
            return try store.job(userID: userID, id: id)
        }
        defer { close(descriptor) }
        do {
            // The job has the person's import number; its imports row takes none.
            var options = options
            options.isQueuedUpload = true
            let result = try ImportService(session: session).importInput(
                .fileDescriptor(descriptor, name: job.fileName), for: user, options: options)
            try finish(.done, importID: result.outcome?.importID)
        } catch let lost as LostClaim {
            throw lost
        } catch {
            let failure = ServiceError(error)
            // The database is gone (a failover): nothing can be recorded; the worker runs
            // the job again on a new session, or the next claims it when the lease lapses.
            if failure.isDatabaseLost || !session.connection.isOpen { throw failure }
            if failure.kind == .busy {
                // Another import of this user (the CLI's, another server's) holds
                // the user's import lock: try again later, as if never started.
                guard try store.requeue(claim) else { throw LostClaim() }
            } else {
                // The import was rolled back to its savepoint and recorded as failed.
                try finish(.failed, error: failure.message)
            }
        }
        return try store.job(userID: userID, id: id)
    }
}
