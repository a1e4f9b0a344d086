import CArchive

/// The entries of a zip read with libarchive's reader, for tests that check what a zip
/// holds independently of the code that wrote it.
public enum ZipEntries {
    /// What reading failed on.
    public struct ReadError: Error, CustomStringConvertible {
        /// libarchive's message.
        public var description: String
    }

    /// Every regular entry of the zip `bytes`, in order: its name and its bytes.
    public static func read(_ bytes: [UInt8]) throws -> [(name: String, bytes: [UInt8])] {
        guard let archive = archive_read_new() else { throw ReadError(description: "archive_read_new failed") }
        defer { archive_read_free(archive) }
        func failure(_ step: String) -> ReadError {
            ReadError(description: step + ": " + (archive_error_string(archive).map { String(cString: $0) } ?? "?"))
        }
        guard archive_read_support_format_zip(archive) == ARCHIVE_OK else { throw failure("zip support") }
        return try bytes.withUnsafeBytes { buffer in
            guard archive_read_open_memory(archive, buffer.baseAddress, buffer.count) == ARCHIVE_OK else {
                throw failure("open")
            }
            var entries: [(name: String, bytes: [UInt8])] = []
            var entry: OpaquePointer?
            while true {
                let status = archive_read_next_header(archive, &entry)
                if status == ARCHIVE_EOF { break }
                guard status == ARCHIVE_OK, let entry else { throw failure("header") }
                let name = archive_entry_pathname_utf8(entry).map { String(cString: $0) } ?? ""
                var data: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let count = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                    if count == 0 { break }
                    guard count > 0 else { throw failure("data of \(name)") }
                    data += chunk[0..<count]
                }
                entries.append((name, data))
            }
            return entries
        }
    }
}
