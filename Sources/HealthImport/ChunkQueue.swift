import Foundation

/// A bounded first-in-first-out queue between the reading (inflating) thread and the
/// scanning thread, so memory stays at `capacity` chunks whatever the input size.
final class ChunkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [PipelineEvent] = []
    private let capacity: Int
    private var isFinished = false
    private var isCancelled = false
    private var failure: ImportError?

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds an event, waiting while the queue is full. Returns false once the consumer
    /// cancelled, so the producer can stop.
    func push(_ event: PipelineEvent) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while events.count >= capacity && !isCancelled {
            condition.wait()
        }
        if isCancelled { return false }
        events.append(event)
        condition.broadcast()
        return true
    }

    /// Whether the consumer cancelled.
    var wasCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isCancelled
    }

    /// Marks the end of the stream, with the producer's error if it failed.
    func finish(failure: ImportError?) {
        condition.lock()
        isFinished = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    /// Takes the next event; `nil` at the end. Throws the producer's error.
    func pop() throws(ImportError) -> PipelineEvent? {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty && !isFinished {
            condition.wait()
        }
        if !events.isEmpty {
            // At most `capacity` events wait, so removing the first is cheap, and a
            // popped chunk is released as soon as the scanner is done with it.
            let event = events.removeFirst()
            condition.broadcast()
            return event
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the producer: pending and future pushes are dropped.
    func cancel() {
        condition.lock()
        isCancelled = true
        events.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
