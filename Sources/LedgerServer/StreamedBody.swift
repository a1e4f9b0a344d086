import Foundation

/// A response body made while it is sent (a person's data export): a producer on a
/// thread of its own writes it into a bounded buffer, and ``MicroHTTPDServer`` hands
/// libmicrohttpd what the buffer holds as the connection takes it. The producer waits
/// while the buffer is full, so a slow client slows the producer instead of filling
/// memory; once the client is gone (``cancel()``), the producer's next write throws
/// ``Cancelled`` and it stops.
public final class StreamedBody: @unchecked Sendable, Hashable {
    /// What a write throws once nobody reads any more.
    public struct Cancelled: Error {}

    /// What one read found.
    enum Chunk: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// The producer finished and everything was read.
        case end
        /// The producer failed: the body is incomplete.
        case failed
    }

    /// The most bytes the buffer holds.
    let capacity: Int
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    /// Where the unread bytes of ``buffer`` start.
    private var start = 0
    private var isFinished = false
    private var isCancelled = false
    private var failure: (any Error)?
    private var sent = 0

    /// Starts `produce` on a thread of its own; it writes the body through the function it
    /// is given. What it throws ends the body as failed (``failure``); `onFailure` gets it
    /// unless it is ``Cancelled``.
    public init(
        capacity: Int = 256 << 10,
        onFailure: @escaping @Sendable (any Error) -> Void = { _ in },
        produce: @escaping @Sendable (_ write: @escaping (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) {
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in
            do {
                try produce(write)
                finish(nil)
            } catch {
                finish(error)
                if !(error is Cancelled) { onFailure(error) }
            }
        }
        thread.name = "streamed-body"
        thread.start()
    }

    /// Bytes handed to the reader so far.
    public var sentBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return sent
    }

    /// What the producer threw, once it failed.
    public var failureSeen: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Waits until the first bytes are there or the producer ended, and rethrows what the
    /// producer threw when it failed before it wrote anything: a refusal found before the
    /// body starts (no such account) is answered as an error, not as a broken download.
    public func awaitStart() throws {
        condition.lock()
        while buffer.count == start && !isFinished { condition.wait() }
        let failure = buffer.count == start ? failure : nil
        condition.unlock()
        if let failure { throw failure }
    }

    /// The producer's write: waits while the buffer is full.
    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        condition.lock()
        defer { condition.unlock() }
        while offset < bytes.count {
            while !isCancelled && buffer.count - start >= capacity { condition.wait() }
            if isCancelled { throw Cancelled() }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = min(bytes.count - offset, capacity - buffer.count)
            buffer.append(contentsOf: bytes[offset..<offset + count])
            offset += count
            condition.broadcast()
        }
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        isFinished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Copies up to `destination.count` unread bytes, waiting for the producer while there
    /// are none.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Chunk {
        condition.lock()
        defer { condition.unlock() }
        while buffer.count == start && !isFinished && !isCancelled { condition.wait() }
        if buffer.count > start {
            let count = min(destination.count, buffer.count - start)
            buffer.withUnsafeBytes { source in
                destination.baseAddress?.copyMemory(from: source.baseAddress! + start, byteCount: count)
            }
            start += count
            sent += count
            condition.broadcast()
            return .bytes(count)
        }
        return failure == nil && !isCancelled ? .end : .failed
    }

    /// Nobody reads any more (the client went away, or the response was dropped): the
    /// producer's next write throws ``Cancelled``.
    public func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Reads the whole body (tests and in-process callers); throws what the producer threw.
    public func readAll() throws -> [UInt8] {
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let result = chunk.withUnsafeMutableBytes { read(into: $0) }
            switch result {
            case .bytes(let count): body += chunk[0..<count]
            case .end: return body
            case .failed: throw failureSeen ?? Cancelled()
            }
        }
    }

    /// Bodies are equal when they are the same body.
    public static func == (lhs: StreamedBody, rhs: StreamedBody) -> Bool { lhs === rhs }
    /// Hashes the body's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
