import CArchive
import Glibc

/// What libarchive's callbacks need: the input, a block to read into, where a reader
/// that seeks is (``isPositioned``), and the reading thread's CPU clock.
final class ArchiveReadContext {
    let input: RawInput
    let block: UnsafeMutableRawBufferPointer
    let clock: ThreadCPUClock
    /// Whether the input is read at offsets (a regular file: `pread(2)`, seeks allowed)
    /// rather than in order.
    let isPositioned: Bool
    /// The offset of the next read when ``isPositioned``.
    var position: Int64 = 0
    /// Whether a read past the hashed prefix first hashes the bytes jumped over: on once
    /// the entries are read in order of their offsets (not while the central directory at
    /// the end is read).
    var isHashingGaps = false
    var failure: ImportError?

    init(input: RawInput, blockBytes: Int, clock: ThreadCPUClock) {
        self.input = input
        self.clock = clock
        self.isPositioned = input.positionedBytes != nil
        self.block = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(blockBytes, 64 * 1024), alignment: 16)
    }

    deinit {
        block.deallocate()
    }

    /// Reads the next block, in order or at ``position``; charges the CPU clock first.
    func readBlock() throws -> Int {
        try clock.checkpoint()
        guard isPositioned else { return try input.read(into: block) }
        if isHashingGaps { try input.hashThrough(position) }
        let got = try input.read(at: position, into: block)
        position += Int64(got)
        return got
    }

    /// Moves ``position`` as `lseek(2)` would; `nil` when the result would be negative.
    func seek(offset: Int64, whence: Int32) -> Int64? {
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = input.positionedBytes ?? 0
        default: return nil
        }
        let (target, overflowed) = base.addingReportingOverflow(offset)
        guard !overflowed, target >= 0 else { return nil }
        position = target
        return target
    }
}
