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
    private let run: Run<T>

    fileprivate init(result: Result<T, any Error>?, seconds: Double, run: Run<T>) {
        self.result = result
        self.seconds = seconds
        self.run = run
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
        run.wait(seconds: seconds)
    }

    /// Waits at most `seconds` for the call (see ``waitForThread(seconds:)``) and returns
    /// what it returned or threw; `nil` when it still runs.
    public func finalResult(waiting seconds: Double = 60) -> Result<T, any Error>? {
        guard run.wait(seconds: seconds) else { return nil }
        return run.result
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it, so that a call
/// that never returns (a lock held forever, a stalled read) fails the test instead of
/// hanging it. When it did not return in time, the caller unblocks it (releases the pipe
/// or the lock) and then calls ``Finished/waitForThread(seconds:)``. With `seconds` 0 it
/// starts `body` and returns at once.
public func finishing<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () throws -> T)
    -> Finished<T>
{
    let clock = ContinuousClock()
    let started = clock.now
    let run = Run<T>()
    Thread { run.finish(Result { try body() }) }.start()
    guard seconds > 0, run.wait(seconds: seconds) else { return Finished(result: nil, seconds: seconds, run: run) }
    let elapsed = started.duration(to: clock.now)
    return Finished(
        result: run.result,
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, run: run)
}

/// One call on its own thread: its result once it returned, seen by any number of waiters.
private final class Run<T: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let box = Mutex<Result<T, any Error>?>(nil)

    var result: Result<T, any Error>? { box.withLock { $0 } }

    func finish(_ result: Result<T, any Error>) {
        box.withLock { $0 = result }
        semaphore.signal()
    }

    func wait(seconds: Double) -> Bool {
        if result != nil { return true }
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        semaphore.signal()  // for the next waiter
        return true
    }
}
