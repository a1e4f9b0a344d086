import Foundation
public import LedgerReadServices
import LedgerStore
import SleepReports

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
    /// How long `sleepledger import` waits for the next byte of a pipe, a FIFO or standard
    /// input before the input counts as stalled and its import fails, in seconds
    /// (`SLEEPLEDGER_IMPORT_IDLE_TIMEOUT`). Default 300; must be above zero.
    public var importIdleTimeoutSeconds: Double
    /// How long `sleepledger import` waits, in seconds, while another import of the same
    /// user (or its removal) holds the user's import lock, before it gives up with exit 75
    /// (`SLEEPLEDGER_IMPORT_LOCK_WAIT`). Default 60; 0 gives up at once.
    public var importLockWaitSeconds: Double

    /// The admin tool's connection setting.
    public static let readOnlyURLVariable = "SLEEPLEDGER_ADMIN_DATABASE_URL"
    /// The setting of ``importIdleTimeoutSeconds``.
    public static let importIdleTimeoutVariable = "SLEEPLEDGER_IMPORT_IDLE_TIMEOUT"
    /// The setting of ``importLockWaitSeconds``.
    public static let importLockWaitVariable = "SLEEPLEDGER_IMPORT_LOCK_WAIT"
    /// The default of ``importIdleTimeoutSeconds``: 300 seconds.
    public static let defaultImportIdleTimeoutSeconds: Double = 300

    /// Builds the configuration from an environment dictionary. A malformed setting is a
    /// usage error (exit 64) naming the variable.
    public init(environment: [String: String], isTerminal: Bool) throws {
        database = try LedgerDatabase(environment: environment)
        readOnlyURL = environment[Self.readOnlyURLVariable].flatMap { $0.isEmpty ? nil : $0 }
        allowsColor = isTerminal && environment["NO_COLOR"] == nil
        showsDebugDetail = Self.showsDebugDetail(environment)
        importIdleTimeoutSeconds = try Self.seconds(
            environment, Self.importIdleTimeoutVariable, default: Self.defaultImportIdleTimeoutSeconds,
            allowsZero: false)
        importLockWaitSeconds = try Self.seconds(
            environment, Self.importLockWaitVariable, default: SampleLoader.defaultLockWaitSeconds, allowsZero: true)
    }

    /// A time setting: unset or empty gives `fallback`; else seconds (`300`, `0.5`) or a
    /// duration (`5m`, `90s`, `1h30m`).
    package static func seconds(
        _ environment: [String: String], _ variable: String, default fallback: Double, allowsZero: Bool
    ) throws(CLIError) -> Double {
        guard let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return fallback
        }
        let value = Double(text).flatMap { $0.isFinite ? $0 : nil } ?? SleepDuration.parse(text).map(Double.init)
        guard let value, value > 0 || (allowsZero && value == 0) else {
            throw CLIError.usage(
                "\(variable) must be a number of seconds\(allowsZero ? "" : " above zero") or a duration such as "
                    + "90s or 5m, not '\(text)'")
        }
        return value
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
    package static func showsDebugDetail(_ environment: [String: String]) -> Bool {
        ["1", "true", "yes"].contains(environment["SLEEPLEDGER_DEBUG"]?.lowercased() ?? "")
    }
}
