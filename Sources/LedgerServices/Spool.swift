import Foundation
import Glibc
public import LedgerStore

/// The spool folder, where uploads wait for their import: the one type that creates,
/// keeps and deletes spool files. A file is written as `incoming-<uuid>.partial` by a
/// ``SpoolFile`` (only the server's user may read it), renamed `upload-<uuid>` once
/// complete, and removed when its job ended, its upload was refused or abandoned, its
/// owner was deleted, or nothing needs it any more (``sweep(minimumAgeSeconds:inUse:)``).
public struct Spool: Sendable {
    /// The folder.
    public let folder: String
    /// The host name files are recorded under in their jobs.
    public let host: String
    /// Whether several hosts share the folder (their workers import any host's jobs).
    public let isShared: Bool

    /// The spool in `folder` on `host`.
    public init(folder: String, host: String, isShared: Bool = false) {
        self.folder = folder
        self.host = host
        self.isShared = isShared
    }

    /// Creates the folder when missing and makes it private (mode 0700): uploads are
    /// people's data.
    public func prepare() throws(ServiceError) {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ServiceError(.unavailable, "cannot create the spool folder \(folder)")
            }
        } else if !isDirectory.boolValue {
            throw ServiceError(.unavailable, "the spool folder \(folder) is not a folder")
        }
        guard chmod(folder, 0o700) == 0 else {
            throw ServiceError(.unavailable, "cannot make the spool folder \(folder) private (chmod 700)")
        }
    }

    /// Free bytes on the file system holding the folder, for unprivileged users.
    public var freeBytes: Int64 {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// A new file to receive an upload of at most `maximumBytes`, holding `reservation`
    /// until it ends, and cut when `hasRoom` (asked every few MiB written) says the spool
    /// ran short.
    public func newFile(
        maximumBytes: Int64, reservation: UploadsInFlight.Reservation? = nil, hasRoom: (@Sendable () -> Bool)? = nil
    ) throws(ServiceError) -> SpoolFile {
        try SpoolFile(folder: folder, maximumBytes: maximumBytes, reservation: reservation, hasRoom: hasRoom)
    }

    /// Removes the received file at `path`; `true` when it was there.
    @discardableResult
    public func remove(_ path: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: path)) != nil
    }

    /// Removes the spooled file of `job` when it was spooled on `host` (on any host when
    /// `nil`: the worker that just ran it could read it); `true` when one was removed.
    @discardableResult
    public static func removeFile(of job: ImportJobStore.Job, onHost host: String?) -> Bool {
        guard host == nil || job.spoolHost == host else { return false }
        return (try? FileManager.default.removeItem(atPath: job.spoolPath)) != nil
    }

    /// Removes files that no job needs and no process holds: partial uploads whose
    /// receiver is gone (a crashed or killed server), and received uploads never queued (a
    /// crash in between) or whose job ended, once older than `minimumAgeSeconds`. A
    /// receiver holds an exclusive `flock` on its file from the first byte until the job is
    /// queued, which the kernel drops when the process dies, however it dies; a held file
    /// is left alone at any age. `inUse` names the files queued or running jobs need; it is
    /// asked after the locks were tried (a receiver lets go of its file only once the job
    /// is committed, so a file found unheld is in that answer if it was queued). Returns
    /// how many were removed.
    @discardableResult
    public func sweep(minimumAgeSeconds: Double, inUse: () throws(ServiceError) -> Set<String>)
        throws(ServiceError) -> Int
    {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var removed = 0
        var candidates: [String] = []
        for name in names where name.hasPrefix("upload-") || name.hasPrefix("incoming-") {
            let path = folder + "/" + name
            guard Self.isUnheld(path) else { continue }
            if name.hasPrefix("incoming-") {
                if remove(path) { removed += 1 }
            } else if let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate]
                as? Date, -modified.timeIntervalSinceNow >= minimumAgeSeconds
            {
                candidates.append(path)
            }
        }
        guard !candidates.isEmpty else { return removed }
        let needed = try inUse()
        for path in candidates where !needed.contains(path) {
            if remove(path) { removed += 1 }
        }
        return removed
    }

    /// Whether no process holds the spool file at `path` (its receiver's exclusive `flock`).
    static func isUnheld(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }
}
