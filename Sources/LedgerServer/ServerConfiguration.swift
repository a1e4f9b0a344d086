import Foundation
import Glibc
public import LedgerServices

/// Everything `sleepledger serve` is told, built once from flags and the environment and
/// validated before the server starts. Every field has a documented default.
public struct ServerConfiguration: Sendable, Hashable {
    /// The address to listen on. Default `127.0.0.1`.
    public var host: String
    /// The port to listen on; 0 picks a free one (tests). Default 8080.
    public var port: UInt16
    /// The address people use (`https://sleep.example.org`): decides the cookie `Secure`
    /// flag and the URLs the server prints. Default `http://<host>:<port>`, or
    /// `https://<host>:<port>` with TLS on.
    public var publicURL: String
    /// The one peer whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (a
    /// reverse proxy); `nil` (default) believes none.
    public var trustedProxy: String?
    /// Connections open at once, each on a thread of its own (the connection watch bounds
    /// how long a slow one may hold it); `serve` raises its open-file limit to fit them.
    /// Default 4096.
    public var maximumConnections: Int
    /// Connections open at once from one client address (an IPv6 client's /64), and
    /// requests in progress at once from one forwarded address behind the trusted proxy
    /// (which is itself exempt). Default 8.
    public var maximumConnectionsPerClient: Int
    /// Seconds from a connection's start, or its previous answer, until its request head
    /// must be complete (libmicrohttpd's idle timeout restarts with every byte). Default 20.
    public var headTimeoutSeconds: Int
    /// The slowest request body accepted, in bytes per second, averaged over each window of
    /// ``bodyRateWindowSeconds`` after a grace of one window; a slower body is cut (logged
    /// and counted as 408). Default 1 KiB/s, so a phone on a weak link still gets through.
    public var minimumBodyBytesPerSecond: Int64
    /// The grace before the body rate counts, and the window it is averaged over. Default 30.
    public var bodyRateWindowSeconds: Int
    /// Requests without a valid token or session that may hold the server past their head
    /// at once (a body to read, work after it); more get 503 with `Retry-After`. Requests
    /// answered from their head (`/healthz`, static files, refusals) never count. Default 64.
    public var maximumAnonymousRequests: Int
    /// Database sessions the server opens at most (requests and its import workers share
    /// them). Default 16.
    public var databaseSessions: Int
    /// The `max-age` of `Strict-Transport-Security`, sent on every answer when the public
    /// URL or the listener is HTTPS; 0 sends none. Default 31536000 (one year).
    public var hstsMaxAgeSeconds: Int
    /// Seconds a connection may stay silent before it is closed (a client that stops
    /// sending mid-upload is cut off). Default 30.
    public var idleTimeoutSeconds: Int
    /// Memory libmicrohttpd may use per connection for headers and buffers. Default 128 KiB.
    public var connectionMemoryBytes: Int
    /// The largest upload accepted. Default 8 GiB.
    public var maximumUploadBytes: Int64
    /// The largest body of any other route (JSON). Default 1 MiB.
    public var maximumBodyBytes: Int
    /// Where uploads are spooled until imported. Default `<data folder>/spool`.
    public var spoolFolder: String
    /// Whether the spool folder is shared by the hosts of several servers, so any
    /// worker may import any job. Default `false`: a job is imported on its host.
    public var isSpoolShared: Bool
    /// Uploads refused with 507 while the spool disk has less free space than this.
    /// Default 1 GiB.
    public var minimumFreeSpoolBytes: Int64
    /// Uploads of one user that may wait or run at once (more are answered 429). Default 3.
    public var maximumPendingUploadsPerUser: Int
    /// Import worker threads in the server (0: only `sleepledger worker` processes
    /// import). Default 2.
    public var workers: Int
    /// Seconds a stopping server waits for running requests before it closes them.
    /// Default 30.
    public var stopDeadlineSeconds: Int
    /// The host name recorded with spooled files. Default: this machine's host name.
    public var hostName: String
    /// The PEM certificate (chain) file of the main listener's TLS; with ``tlsKeyPath``
    /// it turns TLS on. Default `nil`: plain HTTP (TLS left to a reverse proxy).
    public var tlsCertificatePath: String?
    /// The PEM private key file that belongs to ``tlsCertificatePath``. Default `nil`.
    public var tlsKeyPath: String?
    /// The address of the metrics listener (Prometheus text at `/metrics`); `nil` turns
    /// it off. Default `127.0.0.1`.
    public var metricsHost: String?
    /// The port of the metrics listener; 0 picks a free one (tests). Default 9464.
    public var metricsPort: UInt16
    /// How failed sign-ins are slowed and refused. Default ``SignInLimits/init()``.
    public var signInLimits: SignInLimits
    /// How long web sessions last. Default 30 days from sign-in, 7 days without use.
    public var sessionPolicy: WebSessionService.Policy
    /// Password hashes (sign-ins, password changes) computed at once, each holding
    /// Argon2id's 64 MiB. Default 2.
    public var maximumConcurrentPasswordHashes: Int
    /// Data exports (`GET /api/v1/me/export`) written at once, each holding a database
    /// session and a thread while it downloads; one per person. Default 2.
    public var maximumConcurrentExports: Int

    /// Creates a configuration with every default; `spoolFolder` has no default that fits
    /// every installation, so it is a parameter.
    public init(spoolFolder: String) {
        host = "127.0.0.1"
        port = 8080
        publicURL = ""
        trustedProxy = nil
        maximumConnections = 4096
        maximumConnectionsPerClient = 8
        headTimeoutSeconds = 20
        minimumBodyBytesPerSecond = 1024
        bodyRateWindowSeconds = 30
        maximumAnonymousRequests = 64
        databaseSessions = 16
        hstsMaxAgeSeconds = 31_536_000
        idleTimeoutSeconds = 30
        connectionMemoryBytes = 128 << 10
        maximumUploadBytes = 8 << 30
        maximumBodyBytes = 1 << 20
        self.spoolFolder = spoolFolder
        isSpoolShared = false
        minimumFreeSpoolBytes = 1 << 30
        maximumPendingUploadsPerUser = 3
        workers = 2
        stopDeadlineSeconds = 30
        hostName = ProcessInfo.processInfo.hostName
        tlsCertificatePath = nil
        tlsKeyPath = nil
        metricsHost = "127.0.0.1"
        metricsPort = 9464
        signInLimits = SignInLimits()
        sessionPolicy = WebSessionService.Policy()
        maximumConcurrentPasswordHashes = 2
        maximumConcurrentExports = 2
    }

    /// The spool folder as the services use it: on this host, shared or not.
    public var spool: Spool { Spool(folder: spoolFolder, host: hostName, isShared: isSpoolShared) }

    /// The deadlines of a request's head and body.
    var deadlines: ConnectionDeadlines {
        ConnectionDeadlines(
            headSeconds: Double(headTimeoutSeconds), minimumBodyBytesPerSecond: Double(minimumBodyBytesPerSecond),
            bodyWindowSeconds: Double(bodyRateWindowSeconds))
    }

    /// The `Strict-Transport-Security` value every answer carries (issue 20, F7): when
    /// people reach the server over HTTPS (its public URL, or its own TLS); `nil` otherwise
    /// or with a max-age of 0. Without `includeSubDomains`: other hosts of the domain are
    /// not the server's to decide.
    public var strictTransportSecurity: String? {
        guard hstsMaxAgeSeconds > 0, isPublicHTTPS || isTLS else { return nil }
        return "max-age=\(hstsMaxAgeSeconds)"
    }

    /// Whether the main listener speaks TLS (a certificate and a key were given).
    public var isTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }

    /// The public URL, or `http://host:port` (`https://` with TLS) when none was given.
    public var effectivePublicURL: String {
        publicURL.isEmpty ? "\(isTLS ? "https" : "http")://\(Self.urlHost(host)):\(port)" : publicURL
    }

    /// `host` as it appears in a URL: an IPv6 address in brackets.
    static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// Whether people reach the server over HTTPS (cookies then get `Secure`).
    public var isPublicHTTPS: Bool { effectivePublicURL.lowercased().hasPrefix("https://") }

    /// The problems that keep the server from starting, in words a person can act on;
    /// empty when it can start.
    public func problems() -> [String] {
        var found: [String] = []
        var address = in_addr()
        var address6 = in6_addr()
        if inet_pton(AF_INET, host, &address) != 1 && inet_pton(AF_INET6, host, &address6) != 1 {
            found.append("the listen address '\(host)' is not an IPv4 or IPv6 address")
        }
        if let trustedProxy, inet_pton(AF_INET, trustedProxy, &address) != 1,
            inet_pton(AF_INET6, trustedProxy, &address6) != 1
        {
            found.append("the trusted proxy '\(trustedProxy)' is not an IPv4 or IPv6 address")
        }
        if !publicURL.isEmpty,
            !(publicURL.lowercased().hasPrefix("http://") || publicURL.lowercased().hasPrefix("https://"))
        {
            found.append("the public URL must start with http:// or https://")
        }
        if maximumConnections < 1 { found.append("the connection limit must be at least 1") }
        if maximumConnectionsPerClient < 1 { found.append("the per-client connection limit must be at least 1") }
        if idleTimeoutSeconds < 1 { found.append("the idle timeout must be at least 1 second") }
        if headTimeoutSeconds < 1 { found.append("the head timeout must be at least 1 second") }
        if bodyRateWindowSeconds < 1 { found.append("the body rate window must be at least 1 second") }
        if maximumAnonymousRequests < 1 { found.append("the requests without an account must be at least 1") }
        if databaseSessions < 2 { found.append("the database sessions must be at least 2") }
        if workers >= databaseSessions {
            found.append("the database sessions (\(databaseSessions)) must be more than the workers (\(workers))")
        }
        if maximumUploadBytes < 1 { found.append("the upload cap must be at least 1 byte") }
        if workers < 0 { found.append("the number of workers cannot be negative") }
        if maximumPendingUploadsPerUser < 1 { found.append("the pending uploads per user must be at least 1") }
        if !spoolFolder.hasPrefix("/") { found.append("the spool folder must be an absolute path") }
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            found.append("TLS needs both a certificate and a key (--tls-cert and --tls-key)")
        }
        found += signInLimits.problems()
        if maximumConcurrentPasswordHashes < 1 { found.append("password hashes at once must be at least 1") }
        if maximumConcurrentExports < 1 { found.append("exports at once must be at least 1") }
        if let metricsHost {
            if inet_pton(AF_INET, metricsHost, &address) != 1 && inet_pton(AF_INET6, metricsHost, &address6) != 1 {
                found.append("the metrics listen address '\(metricsHost)' is not an IPv4 or IPv6 address")
            }
            if metricsPort != 0 && metricsPort == port {
                found.append("the metrics listener needs a port of its own, not the API's \(port)")
            }
        }
        return found
    }
}
