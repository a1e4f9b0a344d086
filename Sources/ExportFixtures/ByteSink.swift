/// A write buffer that hands full blocks to a closure (a file, a zip entry, memory).
public final class ByteSink {
    private var buffer: [UInt8] = []
    private let blockBytes: Int
    private let flushHandler: (UnsafeRawBufferPointer) throws -> Void
    /// Bytes written so far, buffered ones included.
    public private(set) var bytesWritten: Int64 = 0

    /// Creates a sink passing blocks of about `blockBytes` to `flushHandler`.
    public init(
        blockBytes: Int = 1 << 20, flushHandler: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.blockBytes = blockBytes
        self.flushHandler = flushHandler
        buffer.reserveCapacity(blockBytes + 4096)
    }

    /// Appends text as UTF-8.
    public func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        bytesWritten += Int64(text.utf8.count)
        if buffer.count >= blockBytes { try flush() }
    }

    /// Appends raw bytes.
    public func write(bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        bytesWritten += Int64(bytes.count)
        if buffer.count >= blockBytes { try flush() }
    }

    /// Passes everything buffered on.
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try flushHandler($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
