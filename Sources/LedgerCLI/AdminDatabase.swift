import Foundation
import LedgerStore

/// How `sleepledger-admin` reaches the database: always as the read-only role, never
/// starting, creating or migrating anything, and only after checking that the schema is
/// exactly the one this build knows.
///
/// Where it connects, in order:
/// 1. `SLEEPLEDGER_ADMIN_DATABASE_URL`, verbatim (point it at `sleepledger_readonly` or a
///    login role that is a member of it);
/// 2. `DATABASE_URL` or libpq's `PG*` variables, with the user replaced by
///    `sleepledger_readonly`;
/// 3. the embedded cluster under `SLEEPLEDGER_HOME` (or its default), as
///    `sleepledger_readonly` over the Unix socket; when it is not running the tool says so
///    and names `sleepledger db start` (exit 69) instead of starting it.
enum AdminDatabase {
    /// The admin tool's own connection setting.
    static let urlVariable = "SLEEPLEDGER_ADMIN_DATABASE_URL"

    /// The connection string to use for `environment`.
    static func conninfo(environment: [String: String]) throws -> String {
        if let url = environment[urlVariable], !url.isEmpty { return url }
        let configuration = try DatabaseConfiguration(environment: environment)
        switch configuration.source {
        case .url(let url):
            return try DatabaseConfiguration.settingParameter("user", to: DatabaseRoles.readOnly, in: url)
        case .libpqEnvironment:
            return try DatabaseConfiguration.settingParameter("user", to: DatabaseRoles.readOnly, in: "")
        case .embedded(let home):
            let cluster = EmbeddedCluster(home: home)
            guard case .running = cluster.status() else {
                throw CLIError(
                    .unavailable,
                    "the embedded database at \(home) is not running; start it with `sleepledger db start`")
            }
            return try DatabaseConfiguration.settingParameter(
                "user", to: DatabaseRoles.readOnly, in: cluster.conninfo())
        }
    }

    /// Opens the read-only connection and refuses a schema older or newer than this build
    /// knows (exit 69): the admin tool reads tables that pending migrations would create.
    static func open(environment: [String: String]) throws -> Connection {
        guard let folder = Migrator.locateMigrationsFolder(environment: environment) else {
            throw CLIError(
                .internalError,
                "cannot find the migrations folder; set SLEEPLEDGER_MIGRATIONS to the project's migrations/")
        }
        let migrator = try Migrator(folder: folder)
        let connection = try Connection(conninfo: try conninfo(environment: environment))
        do {
            try connection.readOnlyTransaction { connection in
                try migrator.checkCompatible(on: connection, requireCurrent: true)
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }
}
