import Dispatch
import Foundation
import Glibc
import LedgerServer
import LedgerServices
import SleepReports

/// `sleepledger serve`: the upload server (docs/http-api.md), until SIGTERM or SIGINT.
enum ServeCommand {
    static let usage = """
        Usage: sleepledger serve [options]

          --listen HOST:PORT        Where to listen (default 127.0.0.1:8080; [::1]:8080 for IPv6)
          --public-url URL          The address people use, e.g. https://sleep.example.org
                                    (default http://HOST:PORT, https:// with TLS); https
                                    makes cookies Secure
          --trusted-proxy ADDR      Believe X-Forwarded-For/-Proto only from this address
          --tls-cert FILE           Serve HTTPS with this PEM certificate (chain); needs
                                    --tls-key (default: plain HTTP, TLS left to a proxy)
          --tls-key FILE            The certificate's PEM private key (unencrypted)
          --metrics-listen HOST:PORT
                                    Prometheus metrics at http://HOST:PORT/metrics
                                    (default 127.0.0.1:9464; "off" turns them off)
          --spool DIR               Where uploads wait for import (default <data folder>/spool)
          --shared-spool            DIR is shared by several hosts: any worker imports any job
          --workers N               Import threads in the server (default 2; 0: only
                                    `sleepledger worker` processes import)
          --max-upload SIZE         Largest upload (default 8GiB; K, M, G, KiB, MiB, GiB)
          --min-free SIZE           Refuse uploads (507) below this free spool space (default 1GiB)
          --max-pending N           Uploads one user may have waiting or running (default 3)
          --max-connections N       Connections at once (default 4096; the open-file limit
                                    is raised to fit)
          --max-per-client N        Connections at once from one client address, an IPv6
                                    client's /64; behind --trusted-proxy, requests at once
                                    from one forwarded address (default 8)
          --idle-timeout SECONDS    Close a connection silent this long (default 30)
          --head-timeout SECONDS    Close a connection whose request head is not complete
                                    this long after it opened or was last answered (default 20)
          --min-body-rate SIZE      Cut a request body slower than SIZE per second, averaged
                                    over each window after a grace of one (default 1KiB)
          --body-rate-window SECONDS
                                    That window and grace (default 30)
          --max-anonymous N         Requests without a valid token or session that may be
                                    reading a body or waiting for an answer at once; more
                                    get 503 (default 64)
          --db-sessions N           Database sessions at most, workers included (default 16)
          --hsts-max-age SECONDS    Strict-Transport-Security max-age when people reach the
                                    server over HTTPS (default 31536000; 0: none)
          --stop-deadline SECONDS   On SIGTERM, how long running uploads may go on (default 30)
          --sign-in-limits P1/P2,A1/A2
                                    Failed sign-ins of one handle from one address before
                                    attempts are slowed (P1) and refused (P2), and of one
                                    address (A1, A2) (default 3/10,10/50)
          --sign-in-lockout SECONDS How long refused sign-ins stay refused (default 900)
          --password-hashes N       Password hashes (sign-ins) computed at once, 64 MiB
                                    each (default 2)
          --exports N               Data exports (GET /api/v1/me/export) written at once,
                                    each holding a database session (default 2)
        \(JobCPUOption.usageLines)

        These options can also come from the environment: SLEEPLEDGER_LISTEN,
        SLEEPLEDGER_PUBLIC_URL, SLEEPLEDGER_TRUSTED_PROXY, SLEEPLEDGER_SPOOL,
        SLEEPLEDGER_TLS_CERT, SLEEPLEDGER_TLS_KEY, SLEEPLEDGER_METRICS_LISTEN (flags win).
        The server connects as the sleepledger_server role: SLEEPLEDGER_SERVER_DATABASE_URL,
        else the configured database with that user. SLEEPLEDGER_READ_DATABASE_URL, when
        set, is a replica (as that role) for the reads of a person's results, once it has
        replayed their last write. See docs/http-api.md and docs/operations.md.
        """

    static let options: Set<String> = [
        "listen", "public-url", "trusted-proxy", "spool", "workers", "max-upload", "min-free", "max-pending",
        "max-connections", "max-per-client", "idle-timeout", "stop-deadline", "tls-cert", "tls-key", "metrics-listen",
        "sign-in-limits", "sign-in-lockout", "password-hashes", "head-timeout", "min-body-rate", "body-rate-window",
        "max-anonymous", "db-sessions", "hsts-max-age", "exports", JobCPUOption.name,
    ]

    static func run(_ words: [String], environment: [String: String], console: Console) throws {
        let arguments = try Arguments(words, options: options, flags: ["shared-spool"], usage: usage)
        if arguments.has("help") { return console.print(usage) }
        guard arguments.positionals.isEmpty else { throw CLIError.usage("serve takes no arguments", help: usage) }
        let configuration = try serverConfiguration(arguments, environment: environment)
        let reader = try JobCPUOption.readerOptions(arguments, usage: usage)
        // A thread per connection (and the import workers): two malloc arenas.
        MallocArenas.limit(environment)
        let settings = try Configuration(environment: environment, isTerminal: console.isTerminal)
        let database = settings.database
        let server = SleepLedgerServer(
            configuration: configuration, database: database,
            serverURL: environment["SLEEPLEDGER_SERVER_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 },
            readURL: environment["SLEEPLEDGER_READ_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 },
            importOptions: ImportService.Options(reader: reader, lockWaitSeconds: settings.importLockWaitSeconds),
            version: SleepLedgerVersion.current, log: { line in console.note(Self.stamp() + " " + line) })
        let port = try server.start()
        if let host = configuration.metricsHost, let metricsPort = server.metricsPort {
            console.note(
                "sleepledger: metrics on http://\(host.contains(":") ? "[\(host)]" : host):\(metricsPort)/metrics")
        }
        console.note(
            "sleepledger: serving on \(configuration.host):\(port) (public URL \(server.publicURL)); "
                + "stop with SIGTERM or Ctrl-C")
        waitForStopSignal()
        console.note("sleepledger: stopping (running uploads may finish for \(configuration.stopDeadlineSeconds) s)")
        server.stop()
        console.note("sleepledger: stopped")
    }

    /// The configuration from flags, then the environment, then the defaults.
    static func serverConfiguration(_ arguments: Arguments, environment: [String: String]) throws
        -> ServerConfiguration
    {
        func setting(_ option: String, _ variable: String? = nil) -> String? {
            arguments.value(option) ?? variable.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let spool =
            try setting("spool", "SLEEPLEDGER_SPOOL")
            ?? DatabaseConfiguration.dataFolder(environment: environment) + "/spool"
        var configuration = ServerConfiguration(spoolFolder: spool)
        if let listen = setting("listen", "SLEEPLEDGER_LISTEN") {
            guard let (host, port) = hostAndPort(listen) else {
                throw CLIError.usage("--listen must be HOST:PORT (or [IPv6]:PORT), not '\(listen)'", help: usage)
            }
            configuration.host = host
            configuration.port = port
        }
        configuration.publicURL = setting("public-url", "SLEEPLEDGER_PUBLIC_URL") ?? ""
        configuration.trustedProxy = setting("trusted-proxy", "SLEEPLEDGER_TRUSTED_PROXY")
        configuration.tlsCertificatePath = setting("tls-cert", "SLEEPLEDGER_TLS_CERT")
        configuration.tlsKeyPath = setting("tls-key", "SLEEPLEDGER_TLS_KEY")
        if let metrics = setting("metrics-listen", "SLEEPLEDGER_METRICS_LISTEN") {
            if metrics.lowercased() == "off" {
                configuration.metricsHost = nil
            } else {
                guard let (host, port) = hostAndPort(metrics) else {
                    throw CLIError.usage(
                        "--metrics-listen must be HOST:PORT (or [IPv6]:PORT) or off, not '\(metrics)'", help: usage)
                }
                configuration.metricsHost = host
                configuration.metricsPort = port
            }
        }
        configuration.isSpoolShared = arguments.has("shared-spool")
        try applyLimits(arguments, to: &configuration)
        if let text = arguments.value("sign-in-limits") {
            guard let limits = signInLimits(text, configuration.signInLimits) else {
                throw CLIError.usage(
                    "--sign-in-limits must read PAIR_SLOW/PAIR_REFUSE,ADDRESS_SLOW/ADDRESS_REFUSE such as 3/10,10/50, "
                        + "not '\(text)'", help: usage)
            }
            configuration.signInLimits = limits
        }
        if let text = arguments.value("sign-in-lockout") {
            configuration.signInLimits.lockoutSeconds = Int64(try number(text, "sign-in-lockout"))
        }
        let problems = configuration.problems()
        guard problems.isEmpty else { throw CLIError.usage(problems.joined(separator: "; "), help: usage) }
        return configuration
    }

    /// The options that are a whole number, and the setting each sets.
    static var wholeNumberOptions: [(option: String, setting: WritableKeyPath<ServerConfiguration, Int>)] {
        [
            ("workers", \.workers), ("max-pending", \.maximumPendingUploadsPerUser),
            ("max-connections", \.maximumConnections), ("max-per-client", \.maximumConnectionsPerClient),
            ("idle-timeout", \.idleTimeoutSeconds), ("head-timeout", \.headTimeoutSeconds),
            ("body-rate-window", \.bodyRateWindowSeconds), ("max-anonymous", \.maximumAnonymousRequests),
            ("db-sessions", \.databaseSessions), ("hsts-max-age", \.hstsMaxAgeSeconds),
            ("stop-deadline", \.stopDeadlineSeconds), ("password-hashes", \.maximumConcurrentPasswordHashes),
            ("exports", \.maximumConcurrentExports),
        ]
    }

    /// The options that are a size, and the setting each sets.
    static var sizeOptions: [(option: String, setting: WritableKeyPath<ServerConfiguration, Int64>)] {
        [
            ("max-upload", \.maximumUploadBytes), ("min-free", \.minimumFreeSpoolBytes),
            ("min-body-rate", \.minimumBodyBytesPerSecond),
        ]
    }

    /// The workers', uploads' and connections' limits of `arguments`, over `configuration`.
    static func applyLimits(_ arguments: Arguments, to configuration: inout ServerConfiguration) throws {
        for (option, setting) in wholeNumberOptions {
            if let text = arguments.value(option) { configuration[keyPath: setting] = try number(text, option) }
        }
        for (option, setting) in sizeOptions {
            if let text = arguments.value(option) { configuration[keyPath: setting] = try size(text, option) }
        }
    }

    /// `3/10,10/50`: the thresholds per handle and address, then per address, over `limits`.
    static func signInLimits(_ text: String, _ limits: SignInLimits) -> SignInLimits? {
        let pairs = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        }
        guard pairs.count == 2, pairs.allSatisfy({ $0.count == 2 }),
            case let numbers = pairs.flatMap({ $0 }).compactMap({ $0 }), numbers.count == 4
        else { return nil }
        var limits = limits
        (limits.pairSlowAfter, limits.pairRefuseAfter) = (numbers[0], numbers[1])
        (limits.addressSlowAfter, limits.addressRefuseAfter) = (numbers[2], numbers[3])
        return limits
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    static func hostAndPort(_ text: String) -> (String, UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    static func number(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value >= 0 else {
            throw CLIError.usage("--\(option) must be a whole number, not '\(text)'", help: usage)
        }
        return value
    }

    /// A byte size: `1048576`, `512K`, `100MB`, `8G`, `8GiB` (K, M, G count 1024s); a size
    /// past what 64 bits hold is refused like any other bad size, never an overflow.
    static func size(_ text: String, _ option: String) throws -> Int64 {
        let units: [(String, Int64)] = [
            ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10),
            ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1),
        ]
        let (digits, factor) =
            units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (Substring(text), 1)
        if let value = Int64(digits), value > 0 {
            let (bytes, overflowed) = value.multipliedReportingOverflow(by: factor)
            if !overflowed { return bytes }
        }
        throw CLIError.usage(
            "--\(option) must be a size such as 8GiB or 500MB (at most 8 EiB), not '\(text)'", help: usage)
    }

    /// The time a log line starts with, ISO 8601 UTC to the second (`2026-12-01T13:05:09Z`).
    /// Written on every request: an `ISO8601DateFormatter` made per line cost a quarter of
    /// the server's time on `GET /api/v1/summary` (docs/benchmarks.md, "Upload server").
    static func stamp() -> String {
        ReportFormat.isoUTC(Int64(Date().timeIntervalSince1970.rounded(.down)))
    }

    /// Blocks until SIGTERM or SIGINT.
    static func waitForStopSignal() {
        let stopped = DispatchSemaphore(value: 0)
        let handlers = StopSignalHandlers { stopped.signal() }
        stopped.wait()
        handlers.cancel()
    }
}
