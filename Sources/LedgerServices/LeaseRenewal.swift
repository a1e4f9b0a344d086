import Foundation

/// Renews one claim's lease on a thread of its own while the claiming worker imports on
/// its own thread and session: every `interval` seconds it runs `renew` (a short
/// transaction on another session), until ``stop()`` or until `renew` answers that the
/// claim is no longer the worker's. A renewal that fails (no session free, the database
/// away) is tried again at the next interval; the lease outlasts two of them.
final class LeaseRenewal: @unchecked Sendable {
    private let interval: Double
    private let renew: @Sendable () throws -> Bool
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var isStopping = false
    private var isRunning = false
    private var wasLost = false

    /// A renewal every `interval` seconds through `renew`, which returns `false` once the
    /// claim is lost; failures go to `log`.
    init(
        every interval: Double, log: @escaping @Sendable (String) -> Void,
        renew: @escaping @Sendable () throws -> Bool
    ) {
        self.interval = interval
        self.renew = renew
        self.log = log
    }

    /// Whether a renewal found the claim no longer the worker's.
    var isLost: Bool {
        condition.lock()
        defer { condition.unlock() }
        return wasLost
    }

    /// Starts the thread.
    func start() {
        condition.lock()
        isRunning = true
        condition.unlock()
        let thread = Thread { [self] in run() }
        thread.name = "import-lease"
        thread.start()
    }

    /// Stops renewing and waits for a renewal under way to end. Call it after the job's
    /// transaction ended: a renewal may wait for that transaction's lock on the job.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        isStopping = true
        condition.broadcast()
        while isRunning { condition.wait() }
    }

    private func run() {
        condition.lock()
        while !isStopping {
            let deadline = Date(timeIntervalSinceNow: interval)
            while !isStopping, condition.wait(until: deadline) {}
            if isStopping { break }
            condition.unlock()
            let outcome = Result { try renew() }
            condition.lock()
            switch outcome {
            case .success(true): continue
            case .success(false): wasLost = true
            case .failure(let error):
                log("import lease: renewal failed, trying again in \(interval) s: \(error)")
                continue
            }
            break
        }
        isRunning = false
        condition.broadcast()
        condition.unlock()
    }
}
