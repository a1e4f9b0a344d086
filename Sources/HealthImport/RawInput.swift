import Foundation
import LedgerCrypto
import Synchronization

/// The raw bytes of one input (a file or a pipe), read with `read(2)`, hashed with
/// SHA-256 and counted as they arrive. Bytes read ahead for sniffing are kept and handed
/// out again first, so every consumer sees the input from its first byte.
///
/// A stream (a pipe, FIFO, socket or terminal) is waited on with `poll(2)` before each
/// read: when no byte arrives for the idle timeout the read fails, so an input that stops
/// sending cannot hold an import (and its transaction and lock) open forever. The wait
/// is cut into short slices so that ``cancel()`` ends it within a fraction of a second.
///
/// A regular file can also be read at any offset (``read(at:into:)``, for libarchive's
/// seekable zip reader): the digest still covers every byte once, in order, because it
/// only grows by the bytes that extend what was hashed, and ``hashThrough(_:)`` and
/// ``drain()`` hash what was jumped over.
final class RawInput: @unchecked Sendable {
    /// The input's name for messages: the path, or `-` for standard input.
    let name: String
    /// The size when the input is a regular file.
    let totalBytes: Int64?
    /// Whether a read may wait for the next byte (anything but a regular file or a block
    /// device); only such an input is watched for stalls.
    let isStream: Bool
    /// How long a read of a stream waits for its next byte before it fails.
    let idleTimeoutSeconds: Double
    /// The descriptor's offset when it was wrapped, where offset 0 of ``read(at:into:)``
    /// lies; `nil` unless the input is a regular file, which alone can be read at an offset.
    let startOffset: Int64?
    private let fileDescriptor: Int32
    private let ownsDescriptor: Bool
    private let digest = SHA256Digest()
    private let bytesReadCounter = Atomic<Int64>(0)
    private let isCancelled = Atomic<Bool>(false)
    private var sniffedBytes: [UInt8] = []
    private var sniffedBytesServed = 0
    private var isAtEnd = false

    /// The longest single `poll(2)` wait, so a cancelled read notices within this time.
    static let pollSliceMilliseconds = 200

    private init(name: String, fileDescriptor: Int32, ownsDescriptor: Bool, idleTimeoutSeconds: Double) {
        self.name = name
        self.fileDescriptor = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        self.idleTimeoutSeconds = idleTimeoutSeconds
        var status = stat()
        if fstat(fileDescriptor, &status) == 0 {
            let type = status.st_mode & S_IFMT
            totalBytes = type == S_IFREG ? Int64(status.st_size) : nil
            isStream = type != S_IFREG && type != S_IFBLK
            let offset = lseek(fileDescriptor, 0, SEEK_CUR)
            startOffset = type == S_IFREG && offset >= 0 ? Int64(offset) : nil
        } else {
            totalBytes = nil
            isStream = true
            startOffset = nil
        }
    }

    deinit {
        if ownsDescriptor {
            close(fileDescriptor)
        }
    }

    /// Opens a path for reading. `O_NONBLOCK`, so that opening a FIFO does not wait for a
    /// writer without a limit: the first read waits for it instead, under the idle
    /// timeout (a regular file ignores the flag).
    static func open(path: String, idleTimeoutSeconds: Double = ReaderOptions.standard.idleTimeoutSeconds) throws
        -> RawInput
    {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImportError.io(file: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(descriptor)
            throw ImportError.io(file: path, reason: "is a directory")
        }
        return RawInput(
            name: path, fileDescriptor: descriptor, ownsDescriptor: true, idleTimeoutSeconds: idleTimeoutSeconds)
    }

    /// Wraps a descriptor the caller keeps owning (standard input, a pipe).
    static func borrowing(
        fileDescriptor: Int32, name: String, idleTimeoutSeconds: Double = ReaderOptions.standard.idleTimeoutSeconds
    ) -> RawInput {
        RawInput(
            name: name, fileDescriptor: fileDescriptor, ownsDescriptor: false, idleTimeoutSeconds: idleTimeoutSeconds)
    }

    /// Makes a read that waits for a stream, and every later one, fail at once: the
    /// consumer has given up. Safe to call from any thread.
    func cancel() {
        isCancelled.store(true, ordering: .relaxed)
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

    /// Reads and hashes whatever is left, so the digest covers the whole input. After
    /// ``read(at:into:)``, hashes the file from the end of the hashed prefix to its end.
    func drain(isPositioned: Bool = false) throws {
        if isPositioned, let positionedBytes {
            return try hashThrough(positionedBytes)
        }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while try block.withUnsafeMutableBytes({ (buffer) throws -> Int in
            try read(into: buffer)
        }) > 0 {}
    }

    /// The bytes ``read(at:into:)`` can reach: from ``startOffset`` to the end of the
    /// file; `nil` when the input cannot be read at an offset.
    var positionedBytes: Int64? {
        guard let startOffset, let totalBytes else { return nil }
        return max(totalBytes - startOffset, 0)
    }

    /// Fills `buffer` with the bytes at `offset` (counted from ``startOffset``) with
    /// `pread(2)`, leaving the sequential position alone; returns 0 at the end of the file.
    /// Only for a regular file (``positionedBytes`` not `nil`), and only once ``sniff(atLeast:)``
    /// is done with: bytes that extend the hashed prefix are hashed and counted, others wait
    /// for ``hashThrough(_:)`` or ``drain()``.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let got = try preadFully(at: offset, into: buffer)
        let hashed = bytesRead
        if offset <= hashed, offset + Int64(got) > hashed, let base = buffer.baseAddress {
            let skip = Int(hashed - offset)
            digest.update(UnsafeRawBufferPointer(start: base + skip, count: got - skip))
            bytesReadCounter.add(Int64(got - skip), ordering: .relaxed)
        }
        return got
    }

    /// Hashes (and counts) the bytes from the end of the hashed prefix up to `offset`,
    /// reading them with `pread(2)`: what a seeking reader jumped over.
    func hashThrough(_ offset: Int64) throws {
        guard positionedBytes != nil else { return }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while bytesRead < offset {
            let wanted = Int(min(Int64(block.count), offset - bytesRead))
            let got = try block.withUnsafeMutableBytes { buffer in
                try read(at: bytesRead, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            }
            if got == 0 { return }
        }
    }

    private func preadFully(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let startOffset, let base = buffer.baseAddress, buffer.count > 0, offset >= 0 else { return 0 }
        while true {
            let got = pread(fileDescriptor, base, buffer.count, off_t(startOffset + offset))
            if got >= 0 { return got }
            if errno == EINTR { continue }
            throw ImportError.io(file: name, reason: String(cString: strerror(errno)))
        }
    }

    /// The SHA-256 of all bytes read, lowercase hex. Call once, after the input ended.
    func finishDigest() -> String { digest.finalizeHex() }

    private func readFromDescriptor(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !isAtEnd, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            if isStream { try waitForData() }
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
            // A non-blocking stream with nothing to read yet: wait for it again.
            if isStream, errno == EAGAIN || errno == EWOULDBLOCK { continue }
            throw ImportError.io(file: name, reason: String(cString: strerror(errno)))
        }
    }

    /// Returns once the stream has a byte to read, has ended or has failed (`read(2)`
    /// then tells which); throws when nothing happened for the idle timeout or the read
    /// was cancelled.
    private func waitForData() throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(idleTimeoutSeconds)
        while true {
            if isCancelled.load(ordering: .relaxed) {
                throw ImportError.io(file: name, reason: "the read was cancelled")
            }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw ImportError.io(
                    file: name,
                    reason:
                        "no data arrived for \(Self.secondsText(idleTimeoutSeconds)) (the idle timeout); the input stalled"
                )
            }
            let remainingMilliseconds =
                remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            let slice = Int32(min(Int64(Self.pollSliceMilliseconds), max(1, remainingMilliseconds)))
            var watched = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, slice)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw ImportError.io(file: name, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// `300 s`, `0.5 s`: a timeout for a message.
    static func secondsText(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), seconds < 1e15 { return "\(Int64(seconds)) s" }
        return "\(seconds) s"
    }
}
