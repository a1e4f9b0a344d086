import Synchronization

/// A count of bytes one thread adds to and another reads once the first is done.
final class ByteCounter: Sendable {
    private let value = Atomic<Int64>(0)

    /// The count so far.
    var count: Int64 { value.load(ordering: .relaxed) }

    /// Adds `bytes`.
    func add(_ bytes: Int64) {
        value.add(bytes, ordering: .relaxed)
    }
}
