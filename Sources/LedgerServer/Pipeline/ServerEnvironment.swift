import Foundation
import LedgerServices
import Synchronization
import WebPages

/// What handlers and middleware share: the settings, the services over the session pool,
/// the clock, the sign-in throttle and the log. Built once when the server starts.
final class ServerEnvironment: Sendable {
    /// The server's settings.
    let configuration: ServerConfiguration
    /// Where the database is (the settings' rollup after a change of goals uses it).
    let database: LedgerDatabase
    /// The sessions every service call borrows (the primary's).
    let pool: SessionPool
    /// The replica that takes the reads of routes that read from one, with each person's
    /// position to read their own writes; `nil` without `SLEEPLEDGER_READ_DATABASE_URL`.
    let replica: ReplicaReads?
    /// Uploads from admission to the queue, and a person's imports.
    let uploads: UploadService
    /// The data exports being written (``ServerConfiguration/maximumConcurrentExports``).
    let exports: ExportsInFlight
    /// The current time, epoch seconds.
    let now: @Sendable () -> Int64
    /// Waits the given seconds (a slowed sign-in); injected so that tests need not wait.
    let pause: @Sendable (Double) -> Void
    /// Password hashing for sign-ins, bounded by ``ServerConfiguration/maximumConcurrentPasswordHashes``.
    let passwordHashing: PasswordHashing
    /// Failed sign-ins of this process (``ServerConfiguration/signInLimits``).
    let signInThrottle: SignInThrottle
    /// Whether the server is stopping (new work is turned away with 503).
    let isStopping: @Sendable () -> Bool
    /// Where log lines go.
    let log: @Sendable (String) -> Void
    private let publicURLValue: Mutex<String>

    init(
        configuration: ServerConfiguration, database: LedgerDatabase, pool: SessionPool, replica: ReplicaReads?,
        now: @escaping @Sendable () -> Int64, onQueued: @escaping @Sendable () -> Void,
        isStopping: @escaping @Sendable () -> Bool, pause: (@Sendable (Double) -> Void)?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.database = database
        self.pool = pool
        self.replica = replica
        self.now = now
        self.isStopping = isStopping
        self.log = log
        self.pause = pause ?? { seconds in usleep(UInt32(min(seconds, 60) * 1_000_000)) }
        passwordHashing = PasswordHashing(maximumConcurrent: configuration.maximumConcurrentPasswordHashes)
        signInThrottle = SignInThrottle(limits: configuration.signInLimits)
        exports = ExportsInFlight(maximum: configuration.maximumConcurrentExports)
        uploads = UploadService(
            sessions: pool, spool: configuration.spool, minimumFreeBytes: configuration.minimumFreeSpoolBytes,
            onQueued: onQueued)
        publicURLValue = Mutex(configuration.effectivePublicURL)
    }

    /// Tokens, sessions and passwords over the pool.
    var access: AccessService {
        AccessService(sessions: pool, hashing: passwordHashing, policy: configuration.sessionPolicy)
    }

    /// The address people use, as printed in `Location` headers (the picked port once the
    /// server listens on port 0).
    var publicURL: String {
        get { publicURLValue.withLock { $0 } }
        set { publicURLValue.withLock { $0 = newValue } }
    }

    /// The address URLs the server prints back start with (`Location` headers, `next`
    /// links): the configured public URL; without one, the scheme and host the trusted
    /// proxy says the client used; else the listen address.
    func baseURL(for request: HTTPRequest) -> String {
        configuration.publicURL.isEmpty ? (request.forwardedOrigin ?? publicURL) : publicURL
    }

    /// Whether cookies get `Secure`.
    var isSecureCookie: Bool { configuration.isPublicHTTPS }

    /// Removes a session cookie that no longer names a session.
    func clearingSession(_ request: HTTPRequest) -> [HTTPResponse.Header] {
        request.cookies[WebCookie.session] == nil
            ? [] : [WebCookie.clear(WebCookie.session, path: "/", secure: isSecureCookie)]
    }
}
