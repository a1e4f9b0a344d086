import Foundation
public import LedgerServices
import LedgerStore

/// Threads that import queued uploads: for each job a worker borrows a session of the
/// server's pool (as the server's role; the schema was checked once at start), claims the
/// oldest job it may run under a lease (renewed every third of it in short transactions
/// on another session of the pool while it imports), imports it and, after a successful
/// import, rolls that person up on the same session
/// (``ImportQueue/runNext(anyHost:options:lease:rollingUpWith:now:)``), then gives the
/// session back. They wait for work on a signal from the upload route or poll every few
/// seconds (jobs queued by other hosts). Each job's and rollup's outcome and duration go to
/// ``ServerMetrics`` when there are metrics.
public final class ImportWorkers: @unchecked Sendable {
    /// Seconds between looks at the queue when nothing signalled work.
    public static let pollSeconds = 2.0

    private let count: Int
    private let sessions: SessionPool
    private let host: String
    private let isSpoolShared: Bool
    private let options: ImportService.Options
    private let leaseSeconds: Double
    private let database: LedgerDatabase
    private let log: @Sendable (String) -> Void
    private let metrics: ServerMetrics?
    private let condition = NSCondition()
    private var isStopping = false
    private var hasWork = false
    private var running = 0
    private var importing = 0

    /// How many worker threads there are.
    public var threadCount: Int { count }

    /// How many workers are running a job now.
    public var busyCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return importing
    }

    /// `count` workers borrowing their sessions from `sessions`, running jobs spooled on
    /// `host` (any host's when the spool is shared) under leases of `leaseSeconds`
    /// (renewed on another session of `sessions` every third of it while a job runs) and
    /// rolling up with `database`'s settings, recording jobs and rollups in `metrics` if
    /// given.
    public init(
        count: Int, host: String, isSpoolShared: Bool, options: ImportService.Options = .init(),
        leaseSeconds: Double = ImportQueue.Lease.defaultSeconds, database: LedgerDatabase, sessions: SessionPool,
        metrics: ServerMetrics? = nil, log: @escaping @Sendable (String) -> Void
    ) {
        self.leaseSeconds = leaseSeconds
        self.metrics = metrics
        self.count = count
        self.host = host
        self.isSpoolShared = isSpoolShared
        self.options = options
        self.sessions = sessions
        self.database = database
        self.log = log
    }

    /// Starts the threads.
    public func start() {
        for index in 0..<count {
            condition.lock()
            running += 1
            condition.unlock()
            let thread = Thread { [self] in
                work(index)
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            thread.name = "import-worker-\(index)"
            thread.start()
        }
    }

    /// Wakes a waiting worker: a job was queued.
    public func wake() {
        condition.lock()
        hasWork = true
        condition.broadcast()
        condition.unlock()
    }

    /// Asks the workers to stop after their current job and waits up to `seconds` for
    /// them; queued jobs stay queued. `true` when all stopped in time.
    @discardableResult
    public func stop(waitingUpTo seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        isStopping = true
        condition.broadcast()
        while running > 0 {
            if !condition.wait(until: deadline) { return running == 0 }
        }
        return true
    }

    /// Imports queued jobs until none is left (or the workers stop); returns how many
    /// ran. For `sleepledger worker --once`.
    public func drain() -> Int {
        var done = 0
        while !stopping, runOne() != nil { done += 1 }
        return done
    }

    private var stopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isStopping
    }

    private func work(_ index: Int) {
        while !stopping {
            if runOne() != nil { continue }
            condition.lock()
            if !isStopping && !hasWork {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.pollSeconds))
            }
            hasWork = false
            condition.unlock()
        }
    }

    /// Runs one job on a session of the pool; `nil` when none waits or the queue could not
    /// be read.
    private func runOne() -> ImportJobStore.Job? {
        let started = ContinuousClock.now
        condition.lock()
        importing += 1
        condition.unlock()
        defer {
            condition.lock()
            importing -= 1
            condition.unlock()
        }
        do {
            // A job whose session was lost to a failover runs once more on a new one,
            // under the same claim (imported once: ImportQueue.runNext's resuming).
            var claim: ImportJobStore.Claim?
            let next = try sessions.withRetriedSession { session in
                try ImportQueue(session: session, host: host).runNext(
                    anyHost: isSpoolShared, options: options,
                    lease: ImportQueue.Lease(seconds: leaseSeconds, sessions: sessions, log: log),
                    rollingUpWith: database, resuming: claim, claimed: { claim = $0 },
                    now: { Int64(Date().timeIntervalSince1970) })
            }
            guard var run = next else { return nil }
            if let failure = run.rollupFailure, failure.isDatabaseLost {
                run = rollUpAgain(run)
            }
            let job = run.job
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            metrics?.recordJob(state: job.state, seconds: seconds - (run.rollupSeconds ?? 0))
            log(
                "import job \(job.id) of user \(job.userID): \(job.state.rawValue)\(job.error.map { " (\($0))" } ?? "")"
            )
            if let rollupSeconds = run.rollupSeconds {
                metrics?.recordRollup(succeeded: run.rollupFailure == nil, seconds: rollupSeconds)
            }
            if let failure = run.rollupFailure { log("rollup after import job \(job.id): \(failure)") }
            return job
        } catch {
            log("import worker: \(error)")
            if SessionPool.isLost(error) { backOff() }
            return nil
        }
    }

    /// `run` after its rollup, lost to a failover, ran once more on a new session (a
    /// rollup is idempotent); a rollup lost again is left to the nightly run.
    private func rollUpAgain(_ run: ImportQueue.Run) -> ImportQueue.Run {
        var run = run
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try sessions.withRetriedSession { session in
                try RollupService(database: database, settings: RollupSettings(userID: run.job.userID)).rollUp(
                    userID: run.job.userID, on: session, now: Int64(Date().timeIntervalSince1970))
            }
            run.rollupFailure = nil
        } catch {
            run.rollupFailure = ServiceError(error)
        }
        let elapsed = (clock.now - started).components
        run.rollupSeconds = (run.rollupSeconds ?? 0) + Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return run
    }

    /// After the database was lost and could not be reached again: a pause before the
    /// next look at the queue (the poll interval), so the workers do not spin while a
    /// failover runs.
    private func backOff() {
        condition.lock()
        if !isStopping { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.pollSeconds)) }
        condition.unlock()
    }
}
