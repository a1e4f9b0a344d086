import CArchive
import Foundation

/// Streams the Health export entry out of a zip with libarchive, without unpacking
/// anything to disk; the inflated XML goes to the scanning thread in chunks.
///
/// A regular file (a path, a spooled upload) is read with libarchive's seekable zip
/// reader: it reads the central directory at the end, so an entry that is not the export
/// is skipped by seeking past it, without inflating a byte, whatever its local header says
/// (a data descriptor included). A zip without a readable central directory (a truncated
/// file) falls back to the streamable reader, as does a stream (standard input, a pipe):
/// that reader only learns where an entry ends by inflating it when the entry has a data
/// descriptor, so on a stream every skipped entry is read through in blocks and counted.
///
/// The Health entry is recognised by content: the first one whose first 16 KiB hold
/// `<!DOCTYPE HealthData` or `<HealthData`, whatever its name (`export.xml`,
/// `exportar.xml`, `导出.xml`). `export_cda.xml` and every other entry are skipped.
/// The entry is refused when it inflates past ``ReaderOptions/maximumEntryBytes`` or its
/// inflated-to-compressed ratio passes ``ReaderOptions/maximumCompressionRatio``; the
/// whole archive (every byte inflated from any entry, read or skipped) is refused past
/// ``ReaderOptions/maximumInflatedBytes`` or the same ratio (``InflationMeter``).
enum ZipExportExtractor {
    /// How much of each entry is looked at to recognise the Health export.
    static let recognitionBytes = 16 * 1024
    /// The blocks a skipped entry is read through in, on a stream.
    static let skipBlockBytes = 256 * 1024
    /// libarchive's `AE_IFREG` (a macro with a cast, not importable).
    private static let regularFileType: UInt32 = 0o100000

    /// Runs on the reading thread; returns the error that ended it, if any. Bytes
    /// inflated are added to `inflated`; the thread's CPU time is charged to `clock`.
    static func run(
        input: RawInput, options: ReaderOptions, queue: ChunkQueue, clock: ThreadCPUClock, inflated: ByteCounter
    ) -> ImportError? {
        do {
            let context = ArchiveReadContext(input: input, blockBytes: options.chunkBytes, clock: clock)
            let meter = InflationMeter(options: options, inputName: input.name, counter: inflated, clock: clock)
            try withExtendedLifetime(context) {
                try extract(context: context, options: options, queue: queue, meter: meter)
            }
            if !queue.wasCancelled {
                try input.drain(isPositioned: context.isPositioned)
            }
            return nil
        } catch let error as ImportError {
            return error
        } catch {
            return .io(file: input.name, reason: "\(error)")
        }
    }

    /// An open libarchive reader and whether it is the seekable one.
    private struct OpenArchive {
        let archive: OpaquePointer
        let isSeekable: Bool
    }

    /// Opens the seekable reader when the input allows it and the zip has a central
    /// directory, else the streamable one.
    private static func open(context: ArchiveReadContext) throws -> OpenArchive {
        let name = context.input.name
        if context.isPositioned {
            let archive = try newArchive(name: name)
            archive_read_support_format_zip_seekable(archive)
            if try open(archive, context: context) == ARCHIVE_OK {
                return OpenArchive(archive: archive, isSeekable: true)
            }
            archive_read_free(archive)
            context.position = 0
        }
        let archive = try newArchive(name: name)
        archive_read_support_format_zip_streamable(archive)
        guard try open(archive, context: context) == ARCHIVE_OK else {
            defer { archive_read_free(archive) }
            let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
            throw ImportError.badFile(file: name, line: nil, reason: "not a readable zip archive: \(detail)")
        }
        // The streamable reader reads in order from the start: gaps it seeks over are
        // entries it skipped, to be hashed.
        context.isHashingGaps = true
        return OpenArchive(archive: archive, isSeekable: false)
    }

    private static func newArchive(name: String) throws -> OpaquePointer {
        guard let archive = archive_read_new() else {
            throw ImportError.io(file: name, reason: "libarchive could not allocate a reader")
        }
        return archive
    }

    /// Sets the callbacks and opens; throws the callbacks' own failure (a read error, the
    /// CPU budget).
    private static func open(_ archive: OpaquePointer, context: ArchiveReadContext) throws -> Int32 {
        archive_read_set_callback_data(archive, Unmanaged.passUnretained(context).toOpaque())
        archive_read_set_read_callback(archive, readCallback)
        if context.isPositioned {
            archive_read_set_seek_callback(archive, seekCallback)
        }
        let opened = archive_read_open1(archive)
        if opened != ARCHIVE_OK, let failure = context.failure {
            archive_read_free(archive)
            throw failure
        }
        return opened
    }

    private static func extract(
        context: ArchiveReadContext, options: ReaderOptions, queue: ChunkQueue, meter: InflationMeter
    ) throws {
        let opened = try open(context: context)
        let archive = opened.archive
        defer { archive_read_free(archive) }
        let inputName = context.input.name
        func damaged(_ what: String) -> ImportError {
            if let failure = context.failure { return failure }
            let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
            return .badFile(file: inputName, line: nil, reason: "\(what): \(detail)")
        }
        var isExportFound = false
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status >= ARCHIVE_WARN, let entry else {
                throw damaged("the zip archive is truncated or damaged")
            }
            // The central directory is read: from here on the entries come in order.
            context.isHashingGaps = true
            let name = entryName(entry)
            let reading = EntryReading(archive: archive, name: name, meter: meter) {
                damaged("the zip archive is truncated or damaged in entry \(name)")
            }
            guard !isExportFound, isCandidate(entry, name: name) else {
                try skipData(reading, isSeekable: opened.isSeekable)
                continue
            }
            if archive_entry_size_is_set(entry) != 0,
                archive_entry_size(entry) > options.maximumEntryBytes
            {
                throw sizeCapExceeded(input: inputName, entry: name, options: options)
            }
            let consumedAtStart = archive_filter_bytes(archive, -1)
            let head = try readHead(reading)
            guard isHealthExport(head: head) else {
                try skipData(reading, isSeekable: opened.isSeekable)
                continue
            }
            isExportFound = true
            guard queue.push(.entry(name: name)), queue.push(.bytes(head)) else { return }
            let isStreamed = try streamRest(
                reading, inflatedSoFar: Int64(head.count), consumedAtStart: consumedAtStart, input: inputName,
                options: options, queue: queue)
            guard isStreamed else { return }
        }
        guard isExportFound else {
            throw ImportError.badFile(
                file: inputName, line: nil,
                reason:
                    "no Apple Health export in this zip (no entry with a <HealthData> root, such as apple_health_export/export.xml)"
            )
        }
    }

    /// The entry being read: the reader, its name, the meter every inflated byte goes
    /// through, and the error for a damaged entry.
    private struct EntryReading {
        let archive: OpaquePointer
        let name: String
        let meter: InflationMeter
        let damaged: () -> ImportError

        /// Counts `count` bytes just inflated from this entry.
        func count(_ count: Int) throws(ImportError) {
            try meter.add(count, entry: name, position: archive_filter_bytes(archive, -1))
        }
    }

    /// Whether `entry` may be the Health export: a regular file, not the `*_cda.xml` one.
    private static func isCandidate(_ entry: OpaquePointer, name: String) -> Bool {
        let baseName = name.split(separator: "/").last.map(String.init) ?? name
        return archive_entry_filetype(entry) == regularFileType && !baseName.hasSuffix("_cda.xml")
    }

    /// Skips the current entry's data. The seekable reader seeks past it without reading
    /// it; on a stream it is read through in blocks, every byte counted by the meter, so a
    /// skipped entry that inflates without end is stopped by the cap or the ratio.
    private static func skipData(_ reading: EntryReading, isSeekable: Bool) throws {
        if isSeekable {
            guard archive_read_data_skip(reading.archive) >= ARCHIVE_WARN else { throw reading.damaged() }
            return
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: skipBlockBytes, alignment: 16)
        defer { scratch.deallocate() }
        while true {
            let got = archive_read_data(reading.archive, scratch.baseAddress, scratch.count)
            if got < 0 { throw reading.damaged() }
            if got == 0 { return }
            try reading.count(got)
        }
    }

    /// The first ``recognitionBytes`` of the current entry (fewer when it is shorter).
    private static func readHead(_ reading: EntryReading) throws -> [UInt8] {
        let archive = reading.archive
        var head = [UInt8](repeating: 0, count: recognitionBytes)
        var headCount = 0
        while headCount < head.count {
            let got = head.withUnsafeMutableBytes { buffer -> la_ssize_t in
                guard let base = buffer.baseAddress else { return 0 }
                return archive_read_data(archive, base + headCount, buffer.count - headCount)
            }
            if got < 0 { throw reading.damaged() }
            if got == 0 { break }
            headCount += got
            try reading.count(got)
        }
        head.removeSubrange(headCount...)
        return head
    }

    /// Sends the rest of the export entry to `queue` in chunks, refusing it past the
    /// size cap or the compression ratio. Returns `false` when the queue was cancelled.
    private static func streamRest(
        _ reading: EntryReading, inflatedSoFar: Int64, consumedAtStart: Int64, input: String,
        options: ReaderOptions, queue: ChunkQueue
    ) throws -> Bool {
        let (archive, name) = (reading.archive, reading.name)
        var inflated = inflatedSoFar
        while true {
            let chunk = try readChunk(of: archive, bytes: options.chunkBytes, orThrow: reading.damaged)
            if chunk.isEmpty { return true }
            inflated += Int64(chunk.count)
            if inflated > options.maximumEntryBytes {
                throw sizeCapExceeded(input: input, entry: name, options: options)
            }
            let consumed = max(archive_filter_bytes(archive, -1) - consumedAtStart, 1)
            if inflated > options.compressionRatioGraceBytes,
                Double(inflated) > options.maximumCompressionRatio * Double(consumed)
            {
                throw ImportError.badFile(
                    file: input, line: nil,
                    reason:
                        "entry \(name) inflates more than \(Int(options.maximumCompressionRatio)):1; refused as a possible zip bomb"
                )
            }
            try reading.count(chunk.count)
            guard queue.push(.bytes(chunk)) else { return false }
        }
    }

    /// Up to `bytes` inflated bytes of the current entry; empty at its end.
    private static func readChunk(of archive: OpaquePointer, bytes: Int, orThrow damaged: () -> ImportError) throws
        -> [UInt8]
    {
        var chunkCount = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: bytes) { buffer, initialized in
            var filled = 0
            while filled < buffer.count, let base = buffer.baseAddress {
                let got = archive_read_data(archive, base + filled, buffer.count - filled)
                if got <= 0 {
                    if got < 0 { filled = -1 }
                    break
                }
                filled += got
            }
            chunkCount = filled
            initialized = max(filled, 0)
        }
        if chunkCount < 0 { throw damaged() }
        return chunk
    }

    private static func sizeCapExceeded(input: String, entry: String, options: ReaderOptions)
        -> ImportError
    {
        .badFile(
            file: input, line: nil,
            reason:
                "entry \(entry) inflates to more than \(options.maximumEntryBytes) bytes, the configured cap"
        )
    }

    private static func entryName(_ entry: OpaquePointer) -> String {
        if let utf8 = archive_entry_pathname_utf8(entry) { return String(cString: utf8) }
        if let raw = archive_entry_pathname(entry) { return String(cString: raw) }
        return "(unnamed entry)"
    }

    /// Whether the first bytes of an entry are an Apple Health export.
    static func isHealthExport(head: [UInt8]) -> Bool {
        head.withUnsafeBytes { buffer in
            ByteSearch.first(Array("<!DOCTYPE HealthData".utf8), in: buffer, from: 0, to: buffer.count)
                != nil
                || ByteSearch.first(Array("<HealthData".utf8), in: buffer, from: 0, to: buffer.count) != nil
        }
    }
}

/// libarchive's read callback: hands over the next block of raw input.
private let readCallback:
    @convention(c) (
        OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>?
    ) -> la_ssize_t = {
        _, clientData, bufferOut in
        guard let clientData, let bufferOut else { return -1 }
        let context = Unmanaged<ArchiveReadContext>.fromOpaque(clientData).takeUnretainedValue()
        do {
            let got = try context.readBlock()
            bufferOut.pointee = UnsafeRawPointer(context.block.baseAddress)
            return la_ssize_t(got)
        } catch {
            context.failure = error as? ImportError ?? .io(file: context.input.name, reason: "\(error)")
            return -1
        }
    }

/// libarchive's seek callback, for a regular file: moves the offset of the next read.
private let seekCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, la_int64_t, Int32) -> la_int64_t = {
    _, clientData, offset, whence in
    guard let clientData else { return la_int64_t(ARCHIVE_FATAL) }
    let context = Unmanaged<ArchiveReadContext>.fromOpaque(clientData).takeUnretainedValue()
    return context.seek(offset: offset, whence: whence) ?? la_int64_t(ARCHIVE_FATAL)
}
