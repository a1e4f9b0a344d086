import Foundation
import Glibc
import LedgerStore
import PostgresClient

/// Database sessions shared by the server's connection threads: at most ``capacity`` open
/// at once, opened on demand, handed to one request at a time, and dropped when broken.
///
/// When a call finds the database lost (``isLost(_:session:)``: the connection broke, or
/// the server is shutting down, starting, or a standby now, as in a failover), its session
/// is closed and so are the idle ones, which reached the same server; the next call
/// connects again. ``withRetriedSession(timeout:_:)`` runs an idempotent call once more
/// on a new session, reconnecting with a bounded backoff.
public final class SessionPool: SessionSource, @unchecked Sendable {
    /// The most sessions open at once.
    public let capacity: Int
    /// How long, in seconds, a retried call keeps trying to connect again (waits of 0.1 s
    /// doubling up to 1 s between attempts) before it gives up as unavailable.
    public let reconnectSeconds: Double
    private let open: @Sendable () throws -> LedgerSession
    private let condition = NSCondition()
    private var idle: [LedgerSession] = []
    private var count = 0
    private var isClosed = false
    private var lost = 0
    private var reconnected = 0

    /// A pool of at most `capacity` sessions made by `open`; a retried call tries to
    /// connect again for up to `reconnectSeconds` (default 5).
    public init(capacity: Int, reconnectSeconds: Double = 5, open: @escaping @Sendable () throws -> LedgerSession) {
        self.capacity = max(1, capacity)
        self.reconnectSeconds = reconnectSeconds
        self.open = open
    }

    /// Sessions open now (handed out or idle) and, of them, handed out: for metrics.
    public var usage: (open: Int, inUse: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (count, count - idle.count)
    }

    /// Calls that found the database lost (each dropped its session and the idle ones),
    /// and retried calls that then got a new session: for metrics.
    public var losses: (lost: Int, reconnected: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (lost, reconnected)
    }

    /// Runs `body` with a session, waiting up to ten seconds for one to be free.
    public func withSession<T>(_ body: (LedgerSession) throws -> T) throws -> T {
        try withSession(timeout: 10, body)
    }

    /// Runs `body` with a session, waiting up to `timeout` seconds for one to be free
    /// (``ServiceError/Kind/unavailable`` after that: a full pool is the database being
    /// out of reach for this request, answered as such, never as the caller's fault).
    /// When `body` finds the database lost, the session and the idle ones are closed and
    /// the error is rethrown.
    public func withSession<T>(timeout: Double, _ body: (LedgerSession) throws -> T) throws -> T {
        try run(body, on: try acquire(timeout: timeout))
    }

    /// Runs `body` on `session`, then gives the session back: lost (closed with the idle
    /// ones) when `body` found the database lost, else for the next call.
    private func run<T>(_ body: (LedgerSession) throws -> T, on session: LedgerSession) throws -> T {
        let value: T
        do {
            value = try body(session)
        } catch {
            release(session, lost: Self.isLost(error, session: session))
            throw error
        }
        release(session, lost: false)
        return value
    }

    /// Runs `body`, an idempotent call (a read, an import job, a rollup), with a session;
    /// when it finds the database lost, connects again (waits of 0.1 s doubling up to 1 s,
    /// for at most ``reconnectSeconds``) and runs it once more on the new session. What the
    /// second run throws is rethrown, and so is the first error when no connection could
    /// be made in time.
    public func withRetriedSession<T>(timeout: Double = 10, _ body: (LedgerSession) throws -> T) throws -> T {
        do {
            return try withSession(timeout: timeout, body)
        } catch  where Self.isLost(error) {
            return try run(body, on: try reconnect(after: error))
        }
    }

    /// After `error` lost the database: connects again as a retried call does (waits of
    /// 0.1 s doubling up to 1 s, for at most ``reconnectSeconds``) and keeps the new
    /// session for the next call; throws the last failure as a ``ServiceError`` when no
    /// connection could be made in time.
    public func connectAgain(after error: any Error) throws {
        release(try reconnect(after: error), lost: false)
    }

    /// Whether `error` (with `session` no longer open, when given) means the database was
    /// lost rather than the call failing on its own: a ``ServiceError`` or
    /// `PostgresError` saying so, a connection that broke, or one that could not be made.
    public static func isLost(_ error: any Error, session: LedgerSession? = nil) -> Bool {
        if let session, !session.connection.isOpen { return true }
        switch error {
        case let error as ServiceError: return error.isDatabaseLost
        case let error as PostgresError: return error.isServerLost
        case let error as StoreError: return PostgresError.isServerLost(sqlState: error.sqlState)
        default: return false
        }
    }

    /// A new session after `error` lost the last one: tries to open one with waits of
    /// 0.1 s doubling up to 1 s, for at most ``reconnectSeconds``.
    private func reconnect(after firstError: any Error) throws -> LedgerSession {
        let deadline = ContinuousClock.now + .milliseconds(Int(reconnectSeconds * 1000))
        var wait = 0.1
        var lastError = firstError
        while true {
            do {
                let session = try acquire(timeout: max(0.1, reconnectSeconds))
                condition.lock()
                reconnected += 1
                condition.unlock()
                return session
            } catch  where Self.isLost(error) {
                lastError = error
            }
            guard ContinuousClock.now + .milliseconds(Int(wait * 1000)) < deadline else {
                throw ServiceError(lastError)
            }
            usleep(UInt32(wait * 1_000_000))
            wait = min(wait * 2, 1)
        }
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

    /// Gives `session` back; when the database was `lost`, closes it and every idle
    /// session (they reached the same server) instead.
    private func release(_ session: LedgerSession, lost isLost: Bool) {
        condition.lock()
        var dropped: [LedgerSession] = []
        if isLost {
            lost += 1
            dropped = idle
            idle.removeAll()
            count -= dropped.count
        }
        if session.isReusable && !isClosed && !isLost {
            idle.append(session)
        } else {
            dropped.append(session)
            count -= 1
        }
        // One session came back; after a loss, room for every one that was dropped.
        if dropped.count > 1 { condition.broadcast() } else { condition.signal() }
        condition.unlock()
        for session in dropped { session.close() }
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
