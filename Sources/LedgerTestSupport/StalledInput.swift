import Dispatch
import Foundation
import Glibc
import Synchronization

/// A pipe whose writing end stays open after the given bytes were written, as a client
/// that stops sending leaves it, until ``release()``: the reading end's reader then waits
/// for more (or for its idle timeout).
public final class StalledPipe: Sendable {
    /// The descriptor to read from (`ImportSource.fileDescriptor`).
    public let readingDescriptor: Int32
    private let released = DispatchSemaphore(value: 0)
    private let writerDone = DispatchSemaphore(value: 0)
    private let isReleased = Mutex(false)

    /// Writes `bytes` from a thread of its own (a pipe holds only 64 KiB), then waits for
    /// ``release()`` with the writing end open.
    public init(sending bytes: [UInt8]) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        readingDescriptor = ends[0]
        let descriptor = ends[1]
        let released = self.released
        let writerDone = self.writerDone
        Thread {
            StalledPipe.writeAll(bytes, to: descriptor)
            released.wait()
            Glibc.close(descriptor)
            writerDone.signal()
        }.start()
    }

    /// Writes all of `bytes` to `descriptor` (stops early when the reader went away).
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Closes the writing end, so the reader sees the end of the input. Idempotent.
    public func release() {
        let first = isReleased.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        released.signal()
        writerDone.wait()
    }

    /// Releases the writing end and closes the reading end; call once, after the reader is done.
    public func close() {
        release()
        Glibc.close(readingDescriptor)
    }
}

/// What ``finishing(within:_:)`` saw: the result, or `nil` when the call had not
/// returned in time, and how long it took.
public struct Finished<T: Sendable>: Sendable {
    /// What the call returned or threw; `nil` when it had not returned in time.
    public var result: Result<T, any Error>?
    /// Seconds until it returned (the limit when it did not).
    public var seconds: Double
    private let done: Completion

    fileprivate init(result: Result<T, any Error>?, seconds: Double, done: Completion) {
        self.result = result
        self.seconds = seconds
        self.done = done
    }

    /// Whether the call returned in time.
    public var didFinish: Bool { result != nil }

    /// The error the call threw, if it did.
    public var error: (any Error)? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// After unblocking a call that had not returned in time: waits at most `seconds` for
    /// its thread to end, so the test does not end under it. Returns whether it ended.
    @discardableResult
    public func waitForThread(seconds: Double = 60) -> Bool {
        done.wait(seconds: seconds)
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it, so that a call
/// that never returns (a lock held forever, a stalled read) fails the test instead of
/// hanging it. When it did not return in time, the caller unblocks it (releases the pipe
/// or the lock) and then calls ``Finished/waitForThread(seconds:)``.
public func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () throws -> T)
    -> Finished<T>
{
    let clock = ContinuousClock()
    let started = clock.now
    let box = Mutex<Result<T, any Error>?>(nil)
    let done = Completion()
    Thread {
        let result = Result { try body() }
        box.withLock { $0 = result }
        done.signal()
    }.start()
    guard done.wait(seconds: seconds) else { return Finished(result: nil, seconds: seconds, done: done) }
    let elapsed = started.duration(to: clock.now)
    return Finished(
        result: box.withLock { $0 },
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, done: done)
}

/// A one-time signal that any number of waiters see.
private final class Completion: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let isDone = Mutex(false)

    func signal() {
        isDone.withLock { $0 = true }
        semaphore.signal()
    }

    func wait(seconds: Double) -> Bool {
        if isDone.withLock({ $0 }) { return true }
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        semaphore.signal()  // for the next waiter
        return true
    }
}
