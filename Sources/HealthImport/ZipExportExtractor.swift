import CArchive
import Foundation

/// Streams the Health export entry out of a zip with libarchive, without unpacking
/// anything to disk: libarchive reads the raw input through a callback (so a zip on a
/// pipe works, data descriptors and ZIP64 included), and the inflated XML goes to the
/// scanning thread in chunks.
///
/// The Health entry is recognised by content: the first one whose first 16 KiB hold
/// `<!DOCTYPE HealthData` or `<HealthData`, whatever its name (`export.xml`,
/// `exportar.xml`, `导出.xml`). `export_cda.xml` and every other entry are skipped.
/// The entry is refused when it inflates past ``ReaderOptions/maximumEntryBytes`` or its
/// inflated-to-compressed ratio passes ``ReaderOptions/maximumCompressionRatio``.
enum ZipExportExtractor {
    /// How much of each entry is looked at to recognise the Health export.
    static let recognitionBytes = 16 * 1024
    /// libarchive's `AE_IFREG` (a macro with a cast, not importable).
    private static let regularFileType: UInt32 = 0o100000

    /// Runs on the reading thread; returns the error that ended it, if any.
    static func run(input: RawInput, options: ReaderOptions, queue: ChunkQueue) -> ImportError? {
        do {
            try extract(input: input, options: options, queue: queue)
            if !queue.wasCancelled {
                try input.drain()
            }
            return nil
        } catch let error as ImportError {
            return error
        } catch {
            return .io(file: input.name, reason: "\(error)")
        }
    }

    private static func extract(input: RawInput, options: ReaderOptions, queue: ChunkQueue) throws {
        let context = ArchiveReadContext(input: input, blockBytes: options.chunkBytes)
        defer { withExtendedLifetime(context) {} }
        guard let archive = archive_read_new() else {
            throw ImportError.io(file: input.name, reason: "libarchive could not allocate a reader")
        }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip_streamable(archive)
        let contextPointer = Unmanaged.passUnretained(context).toOpaque()
        let opened = archive_read_open(archive, contextPointer, nil, readCallback, nil)
        func damaged(_ what: String) -> ImportError {
            if let failure = context.failure { return failure }
            let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
            return .badFile(file: input.name, line: nil, reason: "\(what): \(detail)")
        }
        guard opened == ARCHIVE_OK else {
            throw damaged("not a readable zip archive")
        }
        var isExportFound = false
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status >= ARCHIVE_WARN, let entry else {
                throw damaged("the zip archive is truncated or damaged")
            }
            let name = entryName(entry)
            let damagedEntry = { damaged("the zip archive is truncated or damaged in entry \(name)") }
            guard !isExportFound, isCandidate(entry, name: name) else {
                try skipData(of: archive, orThrow: damagedEntry)
                continue
            }
            if archive_entry_size_is_set(entry) != 0,
                archive_entry_size(entry) > options.maximumEntryBytes
            {
                throw sizeCapExceeded(input: input.name, entry: name, options: options)
            }
            let consumedAtStart = archive_filter_bytes(archive, -1)
            let head = try readHead(of: archive, orThrow: damagedEntry)
            guard isHealthExport(head: head) else {
                try skipData(of: archive, orThrow: damagedEntry)
                continue
            }
            isExportFound = true
            guard queue.push(.entry(name: name)), queue.push(.bytes(head)) else { return }
            let isStreamed = try streamRest(
                of: name, archive: archive, inflatedSoFar: Int64(head.count), consumedAtStart: consumedAtStart,
                input: input.name, options: options, queue: queue, orThrow: damagedEntry)
            guard isStreamed else { return }
        }
        guard isExportFound else {
            throw ImportError.badFile(
                file: input.name, line: nil,
                reason:
                    "no Apple Health export in this zip (no entry with a <HealthData> root, such as apple_health_export/export.xml)"
            )
        }
    }

    /// Whether `entry` may be the Health export: a regular file, not the `*_cda.xml` one.
    private static func isCandidate(_ entry: OpaquePointer, name: String) -> Bool {
        let baseName = name.split(separator: "/").last.map(String.init) ?? name
        return archive_entry_filetype(entry) == regularFileType && !baseName.hasSuffix("_cda.xml")
    }

    /// Skips the current entry's data.
    private static func skipData(of archive: OpaquePointer, orThrow damaged: () -> ImportError) throws {
        guard archive_read_data_skip(archive) >= ARCHIVE_WARN else { throw damaged() }
    }

    /// The first ``recognitionBytes`` of the current entry (fewer when it is shorter).
    private static func readHead(of archive: OpaquePointer, orThrow damaged: () -> ImportError) throws -> [UInt8] {
        var head = [UInt8](repeating: 0, count: recognitionBytes)
        var headCount = 0
        while headCount < head.count {
            let got = head.withUnsafeMutableBytes { buffer -> la_ssize_t in
                guard let base = buffer.baseAddress else { return 0 }
                return archive_read_data(archive, base + headCount, buffer.count - headCount)
            }
            if got < 0 { throw damaged() }
            if got == 0 { break }
            headCount += got
        }
        head.removeSubrange(headCount...)
        return head
    }

    /// Sends the rest of the export entry `name` to `queue` in chunks, refusing it past the
    /// size cap or the compression ratio. Returns `false` when the queue was cancelled.
    private static func streamRest(
        of name: String, archive: OpaquePointer, inflatedSoFar: Int64, consumedAtStart: Int64, input: String,
        options: ReaderOptions, queue: ChunkQueue, orThrow damaged: () -> ImportError
    ) throws -> Bool {
        var inflated = inflatedSoFar
        while true {
            let chunk = try readChunk(of: archive, bytes: options.chunkBytes, orThrow: damaged)
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
            let got = try context.input.read(into: context.block)
            bufferOut.pointee = UnsafeRawPointer(context.block.baseAddress)
            return la_ssize_t(got)
        } catch {
            context.failure = error as? ImportError ?? .io(file: context.input.name, reason: "\(error)")
            return -1
        }
    }
