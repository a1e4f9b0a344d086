/// The bounds on the work of one zip read, over every entry, read or skipped: the bytes
/// inflated (recognition heads, the export, and skipped entries a stream makes the reader
/// inflate) count towards ``ReaderOptions/maximumInflatedBytes`` and, against the
/// compressed bytes reached so far, towards ``ReaderOptions/maximumCompressionRatio``.
/// Used on the reading thread only; also charges that thread's CPU time at each block.
final class InflationMeter {
    private let options: ReaderOptions
    private let inputName: String
    private let counter: ByteCounter
    private let clock: ThreadCPUClock
    private(set) var inflatedBytes: Int64 = 0
    private var compressedBytes: Int64 = 0

    init(options: ReaderOptions, inputName: String, counter: ByteCounter, clock: ThreadCPUClock) {
        self.options = options
        self.inputName = inputName
        self.counter = counter
        self.clock = clock
    }

    /// Counts `count` bytes just inflated from `entry`, with the archive read up to
    /// `position` (compressed bytes from its start); throws when the cap or the ratio is
    /// passed, or the CPU budget spent.
    func add(_ count: Int, entry: String, position: Int64) throws(ImportError) {
        inflatedBytes += Int64(count)
        counter.add(Int64(count))
        // The furthest point, not the current one: entries that share their bytes (a
        // central directory pointing at one local entry many times) add nothing to it.
        compressedBytes = max(compressedBytes, position)
        if inflatedBytes > options.maximumInflatedBytes {
            throw ImportError.badFile(
                file: inputName, line: nil,
                reason:
                    "the zip's entries inflate to more than \(options.maximumInflatedBytes) bytes, the configured cap for one input (reached in entry \(entry))"
            )
        }
        if inflatedBytes > options.compressionRatioGraceBytes,
            Double(inflatedBytes) > options.maximumCompressionRatio * Double(max(compressedBytes, 1))
        {
            throw ImportError.badFile(
                file: inputName, line: nil,
                reason:
                    "the zip inflates more than \(Int(options.maximumCompressionRatio)):1 (\(inflatedBytes) bytes from its first \(compressedBytes), in entry \(entry)); refused as a possible zip bomb"
            )
        }
        try clock.checkpoint()
    }
}
