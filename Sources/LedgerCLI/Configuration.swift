public import LedgerStore

/// Everything a `sleepledger` run needs to know about its surroundings, built once from
/// the environment before any work and never changed afterwards.
public struct Configuration: Sendable {
    /// Where the database is: `DATABASE_URL`, libpq's `PG*` variables, or the embedded
    /// default under `SLEEPLEDGER_HOME` (docs/operations.md).
    public var database: DatabaseConfiguration
    /// The folder of `NNNN_name.sql` migrations (`SLEEPLEDGER_MIGRATIONS`, else next to the
    /// executable, else found in the checkout); `nil` when none could be found.
    public var migrationsFolder: String?
    /// Whether colour may be used (`NO_COLOR` unset and output is a terminal).
    public var allowsColor: Bool

    /// Builds the configuration from an environment dictionary.
    public init(environment: [String: String], isTerminal: Bool) throws {
        database = try DatabaseConfiguration(environment: environment)
        migrationsFolder = Migrator.locateMigrationsFolder(environment: environment)
        allowsColor = isTerminal && environment["NO_COLOR"] == nil
    }

    /// The migrator for this build's migrations, or an error naming what to set.
    func migrator() throws -> Migrator {
        guard let migrationsFolder else {
            throw CLIError(
                .internalError,
                "cannot find the migrations folder; set SLEEPLEDGER_MIGRATIONS to the project's migrations/")
        }
        return try Migrator(folder: migrationsFolder)
    }
}
