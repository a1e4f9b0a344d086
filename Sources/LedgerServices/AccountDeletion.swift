public import LedgerReadServices
public import LedgerStore

/// Deleting an account: the one use case behind `sleepledger user remove`,
/// `DELETE /api/v1/me` and the settings page's delete form.
///
/// Removes the account and, by cascade, every row of it; uploads still waiting go with
/// their jobs, and their spooled files on ``spoolHost`` are deleted once the deletion
/// committed. With a ``tombstoneFile`` (backups set up), the account's tombstone is
/// appended and synced there before the deletion commits, so that no restore of an older
/// backup brings the account back (``LedgerDatabase/reapplyDeletions()``); when it cannot
/// be written, nothing is deleted.
public struct AccountDeletion: Sendable {
    /// Which account.
    public enum Account: Sendable, Hashable {
        /// By id (the server, whose row-level security shows it the caller only).
        case id(Int64)
        /// By handle (the operator's CLI).
        case handle(String)
    }

    /// Where tombstones go; `nil` records none.
    public var tombstoneFile: TombstoneFile?
    /// The host whose spool files of the account this process removes.
    public var spoolHost: String

    /// A deletion recording tombstones in `tombstoneFile`, removing spool files of `spoolHost`.
    public init(tombstoneFile: TombstoneFile?, spoolHost: String) {
        self.tombstoneFile = tombstoneFile
        self.spoolHost = spoolHost
    }

    /// What a deletion removed besides the rows.
    public struct Removed: Sendable, Hashable {
        /// Uploads that waited or ran, removed with their jobs.
        public var cancelledImports: Int
        /// Spool files of the account's jobs removed from this host's spool folder.
        public var removedSpoolFiles: Int
    }

    /// Deletes `account` on `session`'s connection. Waits up to `waitSeconds` (`nil`: the
    /// session's own limit) for an import of the account that runs, calling `onWait` with
    /// what holds its import lock. ``ServiceError/Kind/notFound`` for an unknown account.
    public func delete(
        _ account: Account, in session: LedgerSession, waitSeconds: Double?,
        onWait: (ImportLockHolder?) -> Void = { _ in }
    ) throws(ServiceError) -> Removed {
        let store = UserStore(connection: session.connection)
        let record: (Tombstone) throws -> Void = { tombstone in try tombstoneFile?.append(tombstone) }
        let jobs: [ImportJobStore.Job]
        do {
            switch account {
            case .id(let id):
                jobs = try store.remove(id: id, waitSeconds: waitSeconds, onWait: onWait, beforeCommit: record)
            case .handle(let handle):
                jobs = try store.remove(handle: handle, waitSeconds: waitSeconds, onWait: onWait, beforeCommit: record)
            }
        } catch let error as StoreError where error.kind == .notFound {
            if case .handle(let handle) = account { throw UserService.unknown(handle) }
            throw ServiceError(.notFound, "no such account")
        } catch {
            throw ServiceError(error)
        }
        var removed = 0
        for job in jobs where Spool.removeFile(of: job, onHost: spoolHost) { removed += 1 }
        return Removed(
            cancelledImports: jobs.count { $0.state == .queued || $0.state == .running }, removedSpoolFiles: removed)
    }
}
