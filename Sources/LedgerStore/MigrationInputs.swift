import PostgresClient

/// What a migration reads that SQL cannot compute the way SleepLedger does: the migrator
/// writes it into temporary tables inside the migration's own transaction, just before
/// the migration's SQL runs (and the tables go with the transaction).
///
/// `0007_handle_keys.sql` reads `pg_temp.handle_keys (user_id, handle, handle_key)`: every
/// user's handle in NFC and its key (``UserHandle``), computed here with ICU rather than by
/// the server, whose `lower()` depends on its locale and which has no Unicode case folding.
enum MigrationInputs {
    /// Writes what `migration` reads, if it reads anything; runs inside its transaction.
    static func prepare(for migration: Migration, on connection: Connection) throws {
        if migration.version == 7 && migration.name == "handle_keys" { try handleKeys(on: connection) }
    }

    /// `pg_temp.handle_keys`, after locking `users` against writes until the migration
    /// commits, so no row is added or renamed between reading the handles and using their
    /// keys.
    static func handleKeys(on connection: Connection) throws {
        try connection.execute("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE", name: "migrations.lockUsers")
        try connection.execute(
            """
            CREATE TEMP TABLE handle_keys (user_id bigint PRIMARY KEY, handle text NOT NULL, handle_key text NOT NULL)
            ON COMMIT DROP
            """, name: "migrations.createHandleKeys")
        let users = try connection.execute("SELECT id, handle FROM users ORDER BY id", name: "migrations.readHandles")
        try connection.copyIn(
            "COPY handle_keys (user_id, handle, handle_key) FROM STDIN", name: "migrations.handleKeys"
        ) { writer in
            for row in users.rows {
                guard let id = try row.int64(0), let handle = try row.string(1) else {
                    throw StoreError(
                        .decodingFailed, "a users row has a NULL column", statement: "migrations.readHandles")
                }
                try writer.writeRow([
                    .int64(id), .text(try UserHandle.displayForm(handle)), .text(try UserHandle.key(handle)),
                ])
            }
        }
    }
}
