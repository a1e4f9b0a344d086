import Foundation

/// Runs `body` once for each of `inputs`, all at once, each on a thread of its own (libpq
/// blocks: never on the cooperative pool), and returns the results in completion order.
func onThreads<Input: Sendable, Output: Sendable>(
    _ inputs: [Input], _ body: @escaping @Sendable (Input) throws -> Output
) async throws -> [Output] {
    try await withThrowingTaskGroup(of: Output.self) { group in
        for input in inputs {
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in
                    Thread.detachNewThread { continuation.resume(with: Result { try body(input) }) }
                }
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
