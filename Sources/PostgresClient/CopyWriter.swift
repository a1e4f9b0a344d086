/// Streams rows into a running `COPY ... FROM STDIN` (text format). Rows are buffered and
/// sent to the server in chunks of about ``chunkSize`` bytes.
///
/// Valid only inside the closure given to ``Connection/copyIn(_:name:_:)``.
public final class CopyWriter {
    /// Bytes buffered before they are handed to libpq.
    public static let chunkSize = 256 * 1024

    private var buffer: [UInt8] = []
    private let send: ([UInt8]) throws -> Void
    /// Rows written so far.
    public private(set) var rowCount = 0

    /// Creates a writer that hands each chunk of COPY text to `send`.
    public init(send: @escaping ([UInt8]) throws -> Void) {
        self.send = send
        buffer.reserveCapacity(CopyWriter.chunkSize + 4096)
    }

    /// Writes one row of already-textual fields (`nil` is NULL), escaping each.
    public func writeRow(_ fields: [String?]) throws {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: "\t")) }
            try CopyText.appendEscaped(field, to: &buffer)
        }
        try endRow()
    }

    /// Writes one row of typed values (`nil` is NULL), in the same text form as parameters.
    public func writeRow(_ values: [SQLValue?]) throws {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: "\t")) }
            if let value {
                try value.appendCopyText(to: &buffer)
            } else {
                try CopyText.appendEscaped(nil, to: &buffer)
            }
        }
        try endRow()
    }

    private func endRow() throws {
        buffer.append(UInt8(ascii: "\n"))
        rowCount += 1
        if buffer.count >= CopyWriter.chunkSize { try flush() }
    }

    /// Sends buffered rows now.
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try send(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
