import Foundation
import Glibc
import LedgerCrypto

/// One upload's bytes on their way into the ``Spool``: written to a file only the
/// server's user can read, hashed (SHA-256) on the way, never held in memory, cut at
/// the upload cap, and cut when the spool's file system runs short while it is written
/// (its space reserved at admission, ``UploadsInFlight``, is given back when it ends).
public final class SpoolFile {
    /// The largest upload accepted.
    public let maximumBytes: Int64
    /// Bytes received so far.
    public private(set) var receivedBytes: Int64 = 0
    /// Whether more than ``maximumBytes`` arrived (the rest was not kept).
    public private(set) var isOverCap = false
    /// Whether the file was cut because the spool's file system ran short (no space left,
    /// or less free than the server keeps): the upload is answered 507.
    public private(set) var isOutOfSpace = false

    /// Bytes written between two checks of the free space.
    static let spaceCheckInterval: Int64 = 4 << 20

    private var isFinished = false
    private let partialPath: String
    private let finalPath: String
    private var descriptor: Int32
    private let digest = SHA256Digest()
    private let reservation: UploadsInFlight.Reservation?
    private let hasRoom: (@Sendable () -> Bool)?
    private var uncheckedBytes: Int64 = 0

    /// Opens a new spool file in `folder` (``Spool/newFile(maximumBytes:reservation:hasRoom:)``).
    init(
        folder: String, maximumBytes: Int64, reservation: UploadsInFlight.Reservation?,
        hasRoom: (@Sendable () -> Bool)?
    ) throws(ServiceError) {
        self.maximumBytes = maximumBytes
        self.reservation = reservation
        self.hasRoom = hasRoom
        let name = UUID().uuidString.lowercased()
        partialPath = folder + "/incoming-\(name).partial"
        finalPath = folder + "/upload-\(name)"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            reservation?.end()
            throw ServiceError(.unavailable, "cannot create a spool file in \(folder)", debugDetail: Self.lastError)
        }
        // Held while the file is written and until its job is queued: the spool's sweep
        // removes a file only when no process holds it
        // (``Spool/sweep(minimumAgeSeconds:inUse:)``).
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
    }

    deinit { abandon() }

    /// Writes the next bytes of the body; `false` once the upload passed the cap or the
    /// spool ran short of space (``isOutOfSpace``), or the write failed (the request is
    /// then cut off and its file removed).
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !isOverCap, !isOutOfSpace, descriptor >= 0 else { return false }
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
                isOutOfSpace = errno == ENOSPC || errno == EDQUOT
                abandon()
                return false
            }
            offset += written
        }
        receivedBytes += Int64(bytes.count)
        reservation?.use(Int64(bytes.count))
        uncheckedBytes += Int64(bytes.count)
        if uncheckedBytes >= Self.spaceCheckInterval, let hasRoom {
            uncheckedBytes = 0
            guard hasRoom() else {
                isOutOfSpace = true
                abandon()
                return false
            }
        }
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
        reservation?.end()
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Closes and removes the partial file (a cut or failed upload); lets go of a finished
    /// one; harmless twice.
    public func abandon() {
        reservation?.end()
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        if !isFinished { unlink(partialPath) }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
