import CArchive

/// What libarchive's read callback needs: the input and a block to read into.
final class ArchiveReadContext {
    let input: RawInput
    let block: UnsafeMutableRawBufferPointer
    var failure: ImportError?

    init(input: RawInput, blockBytes: Int) {
        self.input = input
        self.block = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(blockBytes, 64 * 1024), alignment: 16)
    }

    deinit {
        block.deallocate()
    }
}
