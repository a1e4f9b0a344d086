public import LedgerServices

/// Everything a `sleepledger` or `sleepledger-admin` run needs to know about its
/// surroundings, built once from the environment before any work and never changed
/// afterwards.
///
/// Printing it (`description`, reflection) never shows a password: the connection strings
/// are redacted.
public struct Configuration: Sendable, CustomStringConvertible, CustomReflectable {
    /// Where the database is (`DATABASE_URL`, libpq's `PG*` variables, or the embedded
    /// default under `SLEEPLEDGER_HOME`) and where the migrations are
    /// (`SLEEPLEDGER_MIGRATIONS`, else next to the executable, else found in the checkout).
    public var database: LedgerDatabase
    /// The admin tool's own connection (`SLEEPLEDGER_ADMIN_DATABASE_URL`), used verbatim;
    /// `nil` means the configured database as the read-only role.
    public var readOnlyURL: String?
    /// Whether colour may be used (`NO_COLOR` unset and output is a terminal).
    public var allowsColor: Bool
    /// Whether errors carry everything the layer below knew, values included
    /// (`SLEEPLEDGER_DEBUG=1`). Off by default: messages are log-safe.
    public var showsDebugDetail: Bool

    /// The admin tool's connection setting.
    public static let readOnlyURLVariable = "SLEEPLEDGER_ADMIN_DATABASE_URL"

    /// Builds the configuration from an environment dictionary.
    public init(environment: [String: String], isTerminal: Bool) throws {
        database = try LedgerDatabase(environment: environment)
        readOnlyURL = environment[Self.readOnlyURLVariable].flatMap { $0.isEmpty ? nil : $0 }
        allowsColor = isTerminal && environment["NO_COLOR"] == nil
        showsDebugDetail = Self.showsDebugDetail(environment)
    }

    /// The database, the admin connection and the switches, passwords replaced by `***`.
    public var description: String {
        var text = "database: \(database.configuration.description)"
        if let readOnlyURL { text += ", \(Self.readOnlyURLVariable): \(DatabaseConfiguration.redacted(readOnlyURL))" }
        return text + ", colour: \(allowsColor), debug detail: \(showsDebugDetail)"
    }

    /// No children: reflection must not reach the connection strings.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Whether `SLEEPLEDGER_DEBUG` asks for debug detail (`1`, `true` or `yes`).
    static func showsDebugDetail(_ environment: [String: String]) -> Bool {
        ["1", "true", "yes"].contains(environment["SLEEPLEDGER_DEBUG"]?.lowercased() ?? "")
    }
}
