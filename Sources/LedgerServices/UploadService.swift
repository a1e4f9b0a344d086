import Foundation
import Glibc
import LedgerStore

/// Uploads from the moment their head arrives until their job is queued, and a person's
/// view of their queue: admission (the person's pending uploads, the spool's free space),
/// the spool file the bytes go to, the check of the complete upload, and the job. Each
/// call borrows one session from ``sessions`` (the server's pool); every spool file is
/// created and removed by ``spool``.
public struct UploadService: Sendable {
    /// What one kind of upload may be: its cap, how many of one person's may wait or run at
    /// once, and the check of the complete bytes before they are queued.
    public struct Limits: Sendable {
        /// The largest upload, in bytes.
        public var maximumBytes: Int64
        /// Uploads of one person that may wait or run at once.
        public var maximumPending: Int
        /// Reads a complete upload through `descriptor` (named `name` in messages) and
        /// throws to refuse it (``ServiceError/Kind/refusedInput``: 422).
        public var check: @Sendable (_ descriptor: Int32, _ name: String) throws(ServiceError) -> Void

        /// Creates the limits.
        public init(
            maximumBytes: Int64, maximumPending: Int,
            check: @escaping @Sendable (_ descriptor: Int32, _ name: String) throws(ServiceError) -> Void
        ) {
            self.maximumBytes = maximumBytes
            self.maximumPending = maximumPending
            self.check = check
        }
    }

    /// Where every call finds its session.
    public let sessions: SessionPool
    /// The spool folder.
    public let spool: Spool
    /// Free bytes the spool's file system keeps: below them, uploads are refused.
    public let minimumFreeBytes: Int64
    /// Called after a job was queued (wakes the workers).
    public let onQueued: @Sendable () -> Void
    /// The uploads being received now, counted in admissions.
    public let inFlight = UploadsInFlight()
    /// The free bytes of the spool's file system now (``Spool/freeBytes``; injected by tests).
    private let freeBytes: @Sendable () -> Int64

    /// Creates the service; `freeBytes` tells the spool's free space (default: its file
    /// system's).
    public init(
        sessions: SessionPool, spool: Spool, minimumFreeBytes: Int64, onQueued: @escaping @Sendable () -> Void = {},
        freeBytes: (@Sendable () -> Int64)? = nil
    ) {
        self.sessions = sessions
        self.spool = spool
        self.minimumFreeBytes = minimumFreeBytes
        self.freeBytes = freeBytes ?? { spool.freeBytes }
        self.onQueued = onQueued
    }

    private func withQueue<T>(_ body: (ImportQueue) throws -> T) throws(ServiceError) -> T {
        try ServiceError.wrapping { try sessions.withSession { try body(ImportQueue(session: $0, host: spool.host)) } }
    }

    /// Admits an upload of `userID` whose head arrived, declaring `declaredBytes` (`nil`:
    /// a chunked body, which may reach the cap): ``ServiceError/Kind/busy`` when
    /// `limits.maximumPending` of theirs wait, run or are being received;
    /// ``ServiceError/Kind/insufficientStorage`` when the spool's free space minus what
    /// uploads in flight reserved and this one's length is below ``minimumFreeBytes``; else
    /// the new spool file its bytes go to, cut when the free space falls below
    /// ``minimumFreeBytes`` while it is written (the database may share the file system).
    public func admit(userID: Int64, limits: Limits, declaredBytes: Int64? = nil) throws(ServiceError) -> SpoolFile {
        let queued = try withQueue { try $0.pendingCount(userID: userID) }
        let reservation = try inFlight.reserve(
            userID: userID, bytes: min(declaredBytes ?? limits.maximumBytes, limits.maximumBytes), queued: queued,
            maximumPending: limits.maximumPending, freeBytes: freeBytes(), minimumFreeBytes: minimumFreeBytes)
        let (freeBytes, minimumFreeBytes) = (freeBytes, minimumFreeBytes)
        return try spool.newFile(maximumBytes: limits.maximumBytes, reservation: reservation) {
            freeBytes() >= minimumFreeBytes
        }
    }

    /// Queues the complete upload in `file` as `fileName`: checked by `limits.check` (its
    /// refusal removes the file and is rethrown), then a job, or the earlier job of the
    /// same bytes (the file removed). The file is let go once the job is committed or the
    /// file removed, never before; on any failure it is removed.
    public func queue(
        _ file: SpoolFile, fileName: String, contentType: String?, userID: Int64, limits: Limits
    ) throws(ServiceError) -> ImportQueue.Queued {
        defer { file.release() }
        let upload: ImportQueue.Upload
        do {
            upload = try file.finish(fileName: fileName, contentType: contentType)
        } catch {
            file.abandon()
            throw error
        }
        do throws(ServiceError) {
            // Read through a descriptor so that messages name the upload, never the spool path.
            let descriptor = open(upload.spoolPath, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ServiceError(.unavailable, "cannot read the upload back from the spool folder")
            }
            defer { close(descriptor) }
            try limits.check(descriptor, upload.fileName)
            let queued = try withQueue { queue in
                try queue.enqueue(upload, userID: userID, maximumPending: limits.maximumPending)
            }
            switch queued {
            case .queued: onQueued()
            case .sameAsEarlier: spool.remove(upload.spoolPath)
            }
            return queued
        } catch {
            // Refused, or not queued (the database went away, or the person's queue filled
            // up meanwhile): the file is nobody's, and the client sends it again.
            spool.remove(upload.spoolPath)
            throw error
        }
    }

    /// The person's uploads, newest first, at most `limit` (what the API lists).
    public func uploads(userID: Int64, limit: Int = 100) throws(ServiceError) -> [ImportView] {
        try withQueue { try $0.jobs(userID: userID, limit: limit).map(ImportView.init) }
    }

    /// The person's upload `id`; ``ServiceError/Kind/notFound`` when they have none of that id.
    public func upload(_ id: Int64, userID: Int64) throws(ServiceError) -> ImportView {
        try withQueue { ImportView(try $0.job(id, userID: userID)) }
    }

    /// Every import of the person, newest first, at most `limit`: their uploads and their
    /// imports made with `sleepledger import` (``ImportHistory/views(userID:limit:)``).
    public func history(userID: Int64, limit: Int = 100) throws(ServiceError) -> [ImportView] {
        try ServiceError.wrapping {
            try sessions.withSession { try ImportHistory(session: $0).views(userID: userID, limit: limit) }
        }
    }

    /// Cancels the person's import `id` while it waits (``ImportQueue/cancel(_:userID:)``).
    public func cancel(_ id: Int64, userID: Int64) throws(ServiceError) {
        try withQueue { try $0.cancel(id, userID: userID) }
    }

    /// The whole queue's depth and age, for metrics, waiting at most `timeout` seconds for
    /// a session.
    public func statistics(timeout: Double) throws(ServiceError) -> ImportQueue.Statistics {
        try ServiceError.wrapping {
            try sessions.withSession(timeout: timeout) { try ImportQueue(session: $0, host: spool.host).statistics() }
        }
    }
}
