import CArchive

/// A zip archive written as it is made, through libarchive's zip writer: deflated entries
/// one after another, each with a data descriptor (its size is not known in advance), and
/// the archive's bytes handed to a sink in blocks of ``blockBytes`` as libarchive produces
/// them. Nothing of the archive is kept beyond libarchive's block and the entry being
/// compressed, however large the entries are.
final class ZipStream {
    /// Where the archive's bytes go; what it throws ends the archive and is rethrown by the
    /// call that was writing, as it is.
    typealias Sink = (UnsafeRawBufferPointer) throws -> Void

    /// The bytes libarchive collects before it hands them to the sink.
    static let blockBytes = 64 << 10

    /// Why nothing more reaches the sink of a zip dropped before ``finish()``.
    struct Abandoned: Error {}

    /// The sink and the first error it threw, shared with libarchive's write callback.
    private final class Output {
        let sink: Sink
        var failure: (any Error)?

        init(sink: @escaping Sink) { self.sink = sink }
    }

    private let archive: OpaquePointer
    private let output: Output
    private let modified: Int64
    private var isFinished = false

    /// Opens a zip whose entries are dated `modified` (epoch seconds), writing to `sink`.
    init(modified: Int64, sink: @escaping Sink) throws {
        guard let archive = archive_write_new() else {
            throw ServiceError(.internalFailure, "the zip writer could not be created")
        }
        self.archive = archive
        self.modified = modified
        output = Output(sink: sink)
        try check(archive_write_set_format_zip(archive), "zip format")
        try check(archive_write_zip_set_compression_deflate(archive), "zip deflate")
        try check(archive_write_set_bytes_per_block(archive, Int32(Self.blockBytes)), "zip block size")
        // The last block as long as it is: a zip ends with its central directory, not padding.
        try check(archive_write_set_bytes_in_last_block(archive, 1), "zip last block")
        let context = Unmanaged.passUnretained(output).toOpaque()
        try check(archive_write_open2(archive, context, nil, Self.write, nil, nil), "zip open")
    }

    /// A zip dropped before ``finish()`` (its export failed) sends nothing more: libarchive's
    /// free would otherwise write the central directory, and a download cut short would end
    /// as a zip that reads as whole.
    deinit {
        if !isFinished && output.failure == nil { output.failure = Abandoned() }
        archive_write_free(archive)
    }

    /// libarchive's write callback: the block to the sink; -1 (and the error kept) when
    /// the sink throws.
    private static let write: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int =
        {
            _, context, buffer, length in
            guard let context else { return -1 }
            let output = Unmanaged<Output>.fromOpaque(context).takeUnretainedValue()
            guard output.failure == nil else { return -1 }
            do {
                try output.sink(UnsafeRawBufferPointer(start: buffer, count: length))
                return length
            } catch {
                output.failure = error
                return -1
            }
        }

    /// Adds the entry `name` whose bytes `body` writes through the function it is given.
    func entry(_ name: String, _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        guard let entry = archive_entry_new() else {
            throw ServiceError(.internalFailure, "a zip entry could not be created")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, 0o100000)
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_mtime(entry, Int(modified), 0)
        try check(archive_write_header(archive, entry), "zip entry header")
        try body { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            let written = archive_write_data(archive, base, bytes.count)
            try check(written == bytes.count ? ARCHIVE_OK : ARCHIVE_FATAL, "zip data")
        }
        try check(archive_write_finish_entry(archive), "zip entry end")
    }

    /// Adds the entry `name` holding `text` (UTF-8).
    func entry(_ name: String, text: String) throws {
        var text = text
        try entry(name) { write in try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) } }
    }

    /// Adds the entry `name` holding `bytes`.
    func entry(_ name: String, bytes: [UInt8]) throws {
        try entry(name) { write in try bytes.withUnsafeBytes { try write($0) } }
    }

    /// Writes the central directory and hands the last bytes to the sink.
    func finish() throws {
        try check(archive_write_close(archive), "zip close")
        isFinished = true
    }

    /// A libarchive status below `ARCHIVE_WARN` as the sink's own error when the sink
    /// failed, else as a ``ServiceError`` naming the step.
    private func check(_ status: Int32, _ step: String) throws {
        guard status < ARCHIVE_WARN else { return }
        if let failure = output.failure { throw failure }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        throw ServiceError(.internalFailure, "the export zip could not be written (\(step): \(message))")
    }
}
