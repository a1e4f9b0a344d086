import Foundation
import Glibc
import LedgerCrypto

/// One upload's bytes on their way into the ``Spool``: written to a file only the
/// server's user can read, hashed (SHA-256) on the way, never held in memory, and cut at
/// the upload cap.
public final class SpoolFile {
    /// The largest upload accepted.
    public let maximumBytes: Int64
    /// Bytes received so far.
    public private(set) var receivedBytes: Int64 = 0
    /// Whether more than ``maximumBytes`` arrived (the rest was not kept).
    public private(set) var isOverCap = false

    private var isFinished = false
    private let partialPath: String
    private let finalPath: String
    private var descriptor: Int32
    private let digest = SHA256Digest()

    /// Opens a new spool file in `folder` (``Spool/newFile(maximumBytes:)``).
    init(folder: String, maximumBytes: Int64) throws(ServiceError) {
        self.maximumBytes = maximumBytes
        let name = UUID().uuidString.lowercased()
        partialPath = folder + "/incoming-\(name).partial"
        finalPath = folder + "/upload-\(name)"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServiceError(.unavailable, "cannot create a spool file in \(folder)", debugDetail: Self.lastError)
        }
        // Held while the file is written and until its job is queued: the spool's sweep
        // removes a file only when no process holds it
        // (``Spool/sweep(minimumAgeSeconds:inUse:)``).
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
    }

    deinit { abandon() }

    /// Writes the next bytes of the body; `false` once the upload passed the cap (the
    /// request is then cut off and its file removed).
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !isOverCap, descriptor >= 0 else { return false }
        guard receivedBytes + Int64(bytes.count) <= maximumBytes else {
            isOverCap = true
            abandon()
            return false
        }
        digest.update(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                abandon()
                return false
            }
            offset += written
        }
        receivedBytes += Int64(bytes.count)
        return true
    }

    /// Closes the file under its final name and describes it for the queue, under
    /// `fileName` with `contentType`.
    public func finish(fileName: String, contentType: String?) throws(ServiceError) -> ImportQueue.Upload {
        guard descriptor >= 0, !isFinished, !isOverCap else {
            throw ServiceError(.internalFailure, "the upload's spool file is gone")
        }
        guard fsync(descriptor) == 0, Glibc.rename(partialPath, finalPath) == 0 else {
            close(descriptor)
            descriptor = -1
            unlink(partialPath)
            throw ServiceError(.unavailable, "cannot keep the upload in the spool folder")
        }
        // The file stays open, and locked, until ``release()``: the spool's sweep leaves a
        // received upload alone until its job is queued or the upload given up.
        isFinished = true
        return ImportQueue.Upload(
            fileName: fileName, contentType: contentType, sizeBytes: receivedBytes, sha256: digest.finalizeHex(),
            spoolPath: finalPath)
    }

    /// Lets go of a finished upload's file (and its lock) once its job is queued, or the
    /// file removed; harmless twice.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Closes and removes the partial file (a cut or failed upload); lets go of a finished
    /// one; harmless twice.
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        if !isFinished { unlink(partialPath) }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
