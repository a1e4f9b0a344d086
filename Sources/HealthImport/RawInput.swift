import Foundation
import LedgerCrypto
import Synchronization

/// The raw bytes of one input (a file or a pipe), read with `read(2)`, hashed with
/// SHA-256 and counted as they arrive. Bytes read ahead for sniffing are kept and handed
/// out again first, so every consumer sees the input from its first byte.
final class RawInput: @unchecked Sendable {
    /// The input's name for messages: the path, or `-` for standard input.
    let name: String
    /// The size when the input is a regular file.
    let totalBytes: Int64?
    private let fileDescriptor: Int32
    private let ownsDescriptor: Bool
    private let digest = SHA256Digest()
    private let bytesReadCounter = Atomic<Int64>(0)
    private var sniffedBytes: [UInt8] = []
    private var sniffedBytesServed = 0
    private var isAtEnd = false

    private init(name: String, fileDescriptor: Int32, ownsDescriptor: Bool) {
        self.name = name
        self.fileDescriptor = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        var status = stat()
        if fstat(fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            totalBytes = Int64(status.st_size)
        } else {
            totalBytes = nil
        }
    }

    deinit {
        if ownsDescriptor {
            close(fileDescriptor)
        }
    }

    /// Opens a path for reading.
    static func open(path: String) throws -> RawInput {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImportError.io(file: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(descriptor)
            throw ImportError.io(file: path, reason: "is a directory")
        }
        return RawInput(name: path, fileDescriptor: descriptor, ownsDescriptor: true)
    }

    /// Wraps a descriptor the caller keeps owning (standard input, a pipe).
    static func borrowing(fileDescriptor: Int32, name: String) -> RawInput {
        RawInput(name: name, fileDescriptor: fileDescriptor, ownsDescriptor: false)
    }

    /// Bytes read from the descriptor so far; safe to call from any thread.
    var bytesRead: Int64 { bytesReadCounter.load(ordering: .relaxed) }

    /// Reads from the descriptor until at least `count` bytes have been sniffed or the
    /// input ends, and returns everything sniffed so far (never consumed).
    func sniff(atLeast count: Int) throws -> (bytes: [UInt8], isComplete: Bool) {
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while sniffedBytes.count < count && !isAtEnd {
            let got = try block.withUnsafeMutableBytes { (buffer) throws -> Int in
                try readFromDescriptor(into: buffer)
            }
            sniffedBytes.append(contentsOf: block.prefix(got))
        }
        return (sniffedBytes, isAtEnd)
    }

    /// Fills `buffer` with the next bytes; returns 0 at the end of the input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if sniffedBytesServed < sniffedBytes.count {
            let count = min(buffer.count, sniffedBytes.count - sniffedBytesServed)
            sniffedBytes.withUnsafeBytes { source in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(
                        rebasing: source[sniffedBytesServed..<sniffedBytesServed + count]))
            }
            sniffedBytesServed += count
            if sniffedBytesServed == sniffedBytes.count {
                sniffedBytes = []
                sniffedBytesServed = 0
            }
            return count
        }
        return try readFromDescriptor(into: buffer)
    }

    /// Reads and hashes whatever is left, so the digest covers the whole input.
    func drain() throws {
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while try block.withUnsafeMutableBytes({ (buffer) throws -> Int in
            try read(into: buffer)
        }) > 0 {}
    }

    /// The SHA-256 of all bytes read, lowercase hex. Call once, after the input ended.
    func finishDigest() -> String { digest.finalizeHex() }

    private func readFromDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !isAtEnd, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let got = Glibc.read(fileDescriptor, base, buffer.count)
            if got > 0 {
                digest.update(UnsafeRawBufferPointer(start: base, count: got))
                bytesReadCounter.add(Int64(got), ordering: .relaxed)
                return got
            }
            if got == 0 {
                isAtEnd = true
                return 0
            }
            if errno == EINTR { continue }
            throw ImportError.io(file: name, reason: String(cString: strerror(errno)))
        }
    }
}
