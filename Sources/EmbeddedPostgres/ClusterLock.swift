import Glibc

/// An exclusive `flock` on `<home>/cluster.lock`, held while initdb, start and stop run so
/// that two processes (or two threads: each lock opens its own file description) never
/// work on one cluster at once. The descriptor is close-on-exec so the postmaster never
/// inherits it.
final class ClusterLock {
    private var descriptor: Int32

    /// Opens (creating, mode 0600) and locks `path`, waiting for other holders.
    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ClusterError("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw ClusterError("cannot lock \(path): \(message)")
        }
    }

    /// Releases the lock.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
