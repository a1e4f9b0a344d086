import Testing

/// A run of generator seeds for one test case: the cases still run in parallel, and the test
/// log names ten batches instead of three hundred seeds (a failure names its seed).
struct SeedBatch: Sendable, CustomTestStringConvertible {
    let seeds: ClosedRange<UInt64>
    var testDescription: String { "seeds \(seeds.lowerBound)...\(seeds.upperBound)" }

    /// Seeds 1 through `count`, in `batches` runs of equal length (the last may be shorter).
    static func batches(of count: UInt64, in batches: UInt64) -> [SeedBatch] {
        let size = (count + batches - 1) / batches
        return stride(from: UInt64(1), through: count, by: Int(size)).map {
            SeedBatch(seeds: $0...min(count, $0 + size - 1))
        }
    }
}
