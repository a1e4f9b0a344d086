import Foundation

/// Runs `body` `count` times at once, each call on a thread of its own (blocking libpq and
/// process calls stay off the cooperative pool), and returns the results in the order the
/// calls finished; the first error thrown is rethrown. `body` gets the call's index.
public func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
        for index in 0..<count {
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in
                    Thread.detachNewThread { continuation.resume(with: Result { try body(index) }) }
                }
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
