import Foundation

/// Database sessions shared by the server's connection threads: at most ``capacity`` open
/// at once, opened on demand, handed to one request at a time, and dropped when broken.
public final class SessionPool: SessionSource, @unchecked Sendable {
    /// The most sessions open at once.
    public let capacity: Int
    private let open: @Sendable () throws -> LedgerSession
    private let condition = NSCondition()
    private var idle: [LedgerSession] = []
    private var count = 0
    private var isClosed = false

    /// A pool of at most `capacity` sessions made by `open`.
    public init(capacity: Int, open: @escaping @Sendable () throws -> LedgerSession) {
        self.capacity = max(1, capacity)
        self.open = open
    }

    /// Sessions open now (handed out or idle) and, of them, handed out: for metrics.
    public var usage: (open: Int, inUse: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (count, count - idle.count)
    }

    /// Runs `body` with a session, waiting up to ten seconds for one to be free.
    public func withSession<T>(_ body: (LedgerSession) throws -> T) throws -> T {
        try withSession(timeout: 10, body)
    }

    /// Runs `body` with a session, waiting up to `timeout` seconds for one to be free
    /// (``ServiceError/Kind/unavailable`` after that: a full pool is the database being
    /// out of reach for this request, answered as such, never as the caller's fault).
    public func withSession<T>(timeout: Double, _ body: (LedgerSession) throws -> T) throws -> T {
        let session = try acquire(timeout: timeout)
        defer { release(session) }
        return try body(session)
    }

    private func acquire(timeout: Double) throws -> LedgerSession {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw ServiceError(.unavailable, "the server is stopping")
            }
            if let session = idle.popLast() {
                condition.unlock()
                return session
            }
            if count < capacity {
                count += 1
                condition.unlock()
                do {
                    return try open()
                } catch {
                    condition.lock()
                    count -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw ServiceError(.unavailable, "every database session is in use")
            }
        }
    }

    private func release(_ session: LedgerSession) {
        condition.lock()
        defer { condition.unlock() }
        if session.isReusable && !isClosed {
            idle.append(session)
        } else {
            session.close()
            count -= 1
        }
        condition.signal()
    }

    /// Closes the idle sessions and refuses new requests; sessions in use close when
    /// they come back.
    public func close() {
        condition.lock()
        isClosed = true
        let sessions = idle
        idle.removeAll()
        count -= sessions.count
        condition.broadcast()
        condition.unlock()
        for session in sessions { session.close() }
    }
}

extension LedgerDatabase {
    /// Whether a session of `pool` answers within `seconds` with a schema this version can
    /// use (``checkSchema(on:)``): the server's health.
    public func isHealthy(using pool: SessionPool, waitingUpTo seconds: Double) -> Bool {
        (try? pool.withSession(timeout: seconds) { session in try checkSchema(on: session) }) != nil
    }
}
