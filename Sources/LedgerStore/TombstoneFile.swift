import Glibc

/// The file of deleted accounts' tombstones (``Tombstone``), beside the backup repository
/// and never in the data folder, so that a restore of the data folder cannot take it back.
/// Lines are appended and synced to disk before the deletion commits; the file is only
/// ever appended to.
public struct TombstoneFile: Sendable, Hashable {
    /// The file's path.
    public var path: String

    /// The file at `path` (created on the first deletion when missing).
    public init(path: String) {
        self.path = path
    }

    /// Appends `tombstone` and syncs the file: when this returns, the line is on disk.
    public func append(_ tombstone: Tombstone) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot open") }
        defer { close(descriptor) }
        let bytes = Array(tombstone.line.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw failure("cannot append to") }
        guard fsync(descriptor) == 0 else { throw failure("cannot sync") }
    }

    /// Every tombstone in the file, in order; none when the file does not exist. A line
    /// that is not a tombstone (a torn last line after a crash) is skipped.
    public func tombstones() throws -> [Tombstone] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [] }
            throw failure("cannot open")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("cannot read") }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap(Tombstone.init(line:))
    }

    private func failure(_ what: String) -> StoreError {
        StoreError(.tombstoneFileFailed, "\(what) the tombstone file \(path): \(String(cString: strerror(errno)))")
    }
}
