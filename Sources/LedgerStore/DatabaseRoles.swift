import Foundation
import Glibc
public import PostgresClient

/// The SleepLedger database roles: `sleepledger_owner` (owns the tables),
/// `sleepledger_app` (reads and writes rows), `sleepledger_readonly` (reads only) and
/// `sleepledger_server` (reads and writes one user's rows at a time, under row-level
/// security).
///
/// The roles themselves are defined in `deploy/postgres/roles.sql`, read from beside the
/// migrations folder like the migrations are (``script(migrationsFolder:)``).
public enum DatabaseRoles {
    /// The role that owns the tables.
    public static let owner = "sleepledger_owner"
    /// The role the server and CLI can use: SELECT, INSERT, UPDATE, DELETE.
    public static let application = "sleepledger_app"
    /// The read-only role: SELECT only, sessions start read-only, no advisory locks.
    public static let readOnly = "sleepledger_readonly"
    /// The upload server's role: reads and writes rows, but row-level security shows it
    /// only the rows of the user named by ``currentUserSetting`` in the transaction.
    public static let server = "sleepledger_server"
    /// The per-transaction setting naming the user whose rows `sleepledger_server` sees
    /// (``settingStatement(userID:)``: `SET LOCAL sleepledger.user_id = '42'`); unset, it
    /// sees none.
    public static let currentUserSetting = "sleepledger.user_id"
    /// The statement naming user `userID` for row-level security until the transaction
    /// ends: `SET LOCAL sleepledger.user_id = '42'`, the id written in as a literal (`SET`
    /// takes no parameters) from the integer, never from text a request sent. `SET LOCAL`
    /// rather than `set_config(..., true)`: it is the form Citus sends on to its worker
    /// nodes (`citus.propagate_set_commands = local`), a function call is not.
    public static func settingStatement(userID: Int64) -> String {
        "SET LOCAL \(currentUserSetting) = '\(userID)'"
    }
    /// The id the transaction's ``currentUserSetting`` names, as SQL: `NULL` when it names
    /// no one (unset, or emptied by the end of an earlier transaction), as the policies read it.
    public static let currentUserID = "nullif(current_setting('\(currentUserSetting)', true), '')::bigint"
    /// The transaction-level advisory lock `roles.sql` takes first (ASCII "SLROLES"), so
    /// that runs against one database wait for each other. Like every advisory lock in a
    /// SleepLedger database, only the writing roles, the database owner and superusers may
    /// take it: the script takes `pg_advisory*_lock` away from `PUBLIC`.
    public static let scriptLockKey: Int64 = 23_446_339_468_412_243

    /// SQLSTATEs of collisions with a concurrent run on another database of the same
    /// cluster (the role catalog is shared): unique violation, duplicate object,
    /// serialization failure, deadlock, and "tuple concurrently updated" (XX000).
    static let retriedStates: Set<String> = ["23505", "42710", "40001", "40P01", "XX000"]

    /// Applies the roles script (idempotent; needs a superuser or CREATEROLE). The script runs
    /// as one transaction; a collision with a concurrent run is retried up to four times.
    public static func apply(on connection: Connection, script: String) throws {
        var attempt = 0
        while true {
            do {
                try connection.executeScript(script, name: "roles.sql")
                return
            } catch let error as PostgresError where attempt < 4 && retriedStates.contains(error.sqlState ?? "") {
                attempt += 1
                usleep(UInt32(20_000 * attempt))
            }
        }
    }

    /// Reads `roles.sql` from beside a migrations folder: `<folder>/../deploy/postgres/roles.sql`
    /// in a checkout, `<folder>/../roles.sql` in an installed `share/sleepledger/`. Throws
    /// `migrationFailed` naming the places looked at when neither exists.
    public static func script(migrationsFolder folder: String) throws -> String {
        let parent = (folder as NSString).deletingLastPathComponent
        let candidates = [parent + "/deploy/postgres/roles.sql", parent + "/roles.sql"]
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
        }
        throw StoreError(
            .migrationFailed, "cannot find roles.sql",
            detail: "looked at " + candidates.joined(separator: " and "))
    }
}
