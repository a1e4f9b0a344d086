import EmbeddedPostgres
import Foundation
import Glibc
import PostgresClient

/// Where SleepLedger's database is, resolved once from the environment.
///
/// Precedence:
/// 1. `DATABASE_URL` (a `postgresql://` URL or a libpq `key=value` string), when set and non-empty.
/// 2. libpq's own environment, when any server-selecting `PG*` variable is set
///    (see ``libpqSelectingVariables``): the connection string is empty and libpq reads them.
/// 3. The embedded cluster in a data folder: `SLEEPLEDGER_HOME` when set, else
///    `/var/lib/sleepledger` for root, else `$HOME/.local/share/sleepledger`.
public struct DatabaseConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Where the connection string comes from. Printed (`description`, `debugDescription`,
    /// reflection) with any password replaced by `***`.
    public enum Source: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// `DATABASE_URL`, verbatim (it may hold a password: never print it, use
        /// `ConnectionString.redacted(_:)`).
        case url(String)
        /// libpq's `PG*` variables (an empty connection string).
        case libpqEnvironment
        /// The embedded cluster under this data folder.
        case embedded(home: String)

        /// `url(<redacted conninfo>)`, `libpqEnvironment` or `embedded(home: <folder>)`.
        public var description: String {
            switch self {
            case .url(let url): return "url(\(ConnectionString.redacted(url)))"
            case .libpqEnvironment: return "libpqEnvironment"
            case .embedded(let home): return "embedded(home: \(home))"
            }
        }

        /// The same as ``description``: no password, even for debugging.
        public var debugDescription: String { description }

        /// No children: reflection (`dump`, test failure output) must not reach the URL.
        public var customMirror: Mirror { Mirror(self, children: [:]) }
    }

    /// The `PG*` variables that choose a server, database or user; any one of them set
    /// makes libpq's environment win over the embedded default. Variables that only tune a
    /// connection (`PGPASSWORD`, `PGSSLMODE`, `PGOPTIONS`, ...) do not count on their own.
    public static let libpqSelectingVariables = [
        "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE",
    ]

    /// The data folder used by root when `SLEEPLEDGER_HOME` is not set.
    public static let systemHome = EmbeddedCluster.systemHome

    /// The resolved source.
    public let source: Source

    /// Creates a configuration from an explicit source.
    public init(source: Source) {
        self.source = source
    }

    /// Resolves the source from `environment` (inject `ProcessInfo.processInfo.environment`).
    /// `isRoot` defaults to the effective user id being 0; `userHome` to `HOME`, else the
    /// password database. Throws ``ServiceError`` when no data folder can be determined.
    public init(environment: [String: String], isRoot: Bool? = nil, userHome: String? = nil) throws {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let url = value("DATABASE_URL") {
            source = .url(url)
        } else if DatabaseConfiguration.libpqSelectingVariables.contains(where: { value($0) != nil }) {
            source = .libpqEnvironment
        } else {
            source = .embedded(
                home: try DatabaseConfiguration.dataFolder(environment: environment, isRoot: isRoot, userHome: userHome)
            )
        }
    }

    /// SleepLedger's data folder (the embedded cluster's home, the server's default spool
    /// parent): `SLEEPLEDGER_HOME` when set, else `/var/lib/sleepledger` for root, else
    /// `$HOME/.local/share/sleepledger`.
    public static func dataFolder(environment: [String: String], isRoot: Bool? = nil, userHome: String? = nil) throws
        -> String
    {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let home = value("SLEEPLEDGER_HOME") { return home }
        if isRoot ?? (geteuid() == 0) { return DatabaseConfiguration.systemHome }
        guard let home = userHome ?? value("HOME") ?? DatabaseConfiguration.passwordDatabaseHome() else {
            throw ServiceError(
                .internalFailure,
                "cannot find a home folder for SleepLedger's data; set SLEEPLEDGER_HOME, DATABASE_URL or the PG* variables"
            )
        }
        let trimmed = home.hasSuffix("/") && home.count > 1 ? String(home.dropLast()) : home
        return trimmed + "/.local/share/sleepledger"
    }

    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }

    /// Whether the embedded cluster must be started before connecting.
    public var isEmbedded: Bool {
        if case .embedded = source { return true }
        return false
    }

    /// The connection string to use: the URL, the empty string for libpq's environment,
    /// or, for the embedded source, the cluster's (started first, created on first use,
    /// when `startingEmbeddedCluster`; otherwise just its connection string, after
    /// checking that nobody else could have replaced its socket: `EmbeddedCluster.checkFolders()`).
    public func conninfo(startingEmbeddedCluster: Bool = true) throws -> String {
        switch source {
        case .url(let url): return url
        case .libpqEnvironment: return ""
        case .embedded(let home):
            let cluster = EmbeddedCluster(home: home)
            if startingEmbeddedCluster { return try cluster.start() }
            try cluster.checkFolders()
            return cluster.conninfo()
        }
    }

    /// A log-safe summary: `DATABASE_URL (<redacted conninfo>)`, `libpq environment (PG*)`
    /// or `embedded cluster at <home>`.
    public var description: String {
        switch source {
        case .url(let url): return "DATABASE_URL (\(ConnectionString.redacted(url)))"
        case .libpqEnvironment: return "libpq environment (PG* variables)"
        case .embedded(let home): return "embedded cluster at \(home)"
        }
    }

    /// The same as ``description``: no password, even for debugging.
    public var debugDescription: String { description }

    /// No children: reflection (`dump`, test failure output) must not reach the URL.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// `conninfo` (a URL or `key=value` string from the environment) with any password
    /// replaced by `***`, for front ends that print one; unparsable input is summarised
    /// without its content.
    public static func redacted(_ conninfo: String) -> String {
        ConnectionString.redacted(conninfo)
    }
}
