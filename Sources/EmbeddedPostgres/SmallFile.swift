import Glibc

/// Reads small files (pid files, `/proc/<pid>/cmdline`, command output) with plain
/// `read(2)`. Foundation's file readers leak their buffer for files that report size 0,
/// which every `/proc` file does (found by `deploy/leakcheck.sh`).
enum SmallFile {
    /// The file's bytes, at most `limit`; `nil` when it cannot be opened.
    static func bytes(atPath path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while result.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    /// The file as UTF-8 text (invalid bytes repaired); `nil` when it cannot be opened.
    static func text(atPath path: String) -> String? {
        bytes(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The last `count` bytes of the file as text; `nil` when it cannot be opened.
    static func tail(atPath path: String, count: Int = 4096) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let size = lseek(descriptor, 0, SEEK_END)
        _ = lseek(descriptor, max(0, size - off_t(count)), SEEK_SET)
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                read(descriptor, $0.baseAddress.map { $0 + filled }, count - filled)
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return String(decoding: bytes[0..<filled], as: UTF8.self)
    }
}
