import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// The rules every user-data table must follow, checked from pg_catalog for all tables that
/// have a `user_id` column, so tables added by later migrations are held to them too.
@Suite("Catalog rules for user data")
struct CatalogRuleTests {
    static func migratedConnection() throws -> Connection {
        try Connection(conninfo: TestDatabase.migrated().conninfo)
    }

    static func userDataTables(_ connection: Connection) throws -> [String] {
        try connection.execute(
            """
            SELECT c.relname FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
            ORDER BY c.relname
            """
        ).rows.compactMap { try $0.string(0) }
    }

    /// The shared tables (deploy/citus/tables.conf), which hold no person's data even when
    /// they have a user_id column.
    static var shared: [String] { (try? CitusTables.declared()).map { $0.reference + $0.local } ?? [] }

    @Test("the foundation's and the rollup's user-data tables are among the ones checked")
    func tablesFound() throws {
        let tables = Set(try Self.userDataTables(Self.migratedConnection()))
        #expect(
            Set(["imports", "rollup_state", "sleep_samples", "nights", "naps", "summaries"]).isSubset(of: tables))
    }

    @Test("every primary key and unique key of a user-data table starts with user_id")
    func keysLeadWithUserID() throws {
        let connection = try Self.migratedConnection()
        // Unique indexes cover primary keys, unique constraints and bare unique indexes.
        let offenders = try connection.execute(
            """
            SELECT t.relname AS table_name, i.relname AS index_name,
                   coalesce(first_column.attname, '(expression)') AS first_column
            FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            LEFT JOIN pg_attribute first_column ON first_column.attrelid = t.oid AND first_column.attnum = x.indkey[0]
            WHERE n.nspname = 'public' AND x.indisunique
              AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attname = 'user_id' AND NOT a.attisdropped)
              AND (x.indkey[0] = 0 OR first_column.attname IS DISTINCT FROM 'user_id')
              AND NOT (t.relname = ANY ($1::text[]))
            """, [CitusTables.array(Self.shared)]
        ).rows.map {
            "\(try $0.string("table_name") ?? "").\(try $0.string("index_name") ?? "") starts with \(try $0.string("first_column") ?? "")"
        }
        #expect(offenders == [])

        let withoutPrimaryKey = try connection.execute(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
              AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped)
              AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p')
            """
        ).rows.map { try $0.string(0) }
        #expect(withoutPrimaryKey == [])
    }

    @Test("every user-data table, and users, forces row-level security with a policy for the server's role")
    func rowLevelSecurityEverywhere() throws {
        let connection = try Self.migratedConnection()
        let tables = try Self.userDataTables(connection) + ["users"]
        for table in tables {
            let row = try connection.execute(
                """
                SELECT c.relrowsecurity, c.relforcerowsecurity,
                       EXISTS (SELECT FROM pg_policies p WHERE p.tablename = c.relname
                               AND p.policyname = 'sleepledger_server_own_rows' AND 'sleepledger_server' = ANY (p.roles))
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relname = $1
                """, [.text(table)]
            ).single()
            #expect(try row.bool(0) == true, "\(table): row-level security not enabled")
            #expect(try row.bool(1) == true, "\(table): row-level security not forced")
            #expect(try row.bool(2) == true, "\(table): no policy for sleepledger_server")
        }
    }

    @Test("every user-data table's user_id references users(id) ON DELETE CASCADE")
    func userIDCascades() throws {
        let connection = try Self.migratedConnection()
        let offenders = try connection.execute(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute u ON u.attrelid = c.oid AND u.attname = 'user_id' AND NOT u.attisdropped
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
              AND NOT EXISTS (
                SELECT FROM pg_constraint f
                WHERE f.conrelid = c.oid AND f.contype = 'f'
                  AND f.confrelid = 'public.users'::regclass
                  AND f.conkey = ARRAY[u.attnum]
                  AND f.confkey = ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = 'public.users'::regclass AND attname = 'id')]
                  AND f.confdeltype = 'c')
            ORDER BY c.relname
            """
        ).rows.map { try $0.string(0) }
        #expect(offenders == [])
    }

    @Test("the rule check catches a table that breaks it")
    func ruleCheckCatchesOffender() throws {
        let connection = try Self.migratedConnection()
        try connection.execute(
            "CREATE TABLE bad_notes (id bigint PRIMARY KEY, user_id bigint REFERENCES users (id), note text)")
        let offenders = try connection.execute(
            """
            SELECT t.relname FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid
            LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
            WHERE x.indisunique AND t.relname = 'bad_notes' AND a.attname IS DISTINCT FROM 'user_id'
            """
        ).rows.count
        #expect(offenders == 1)
        let cascade = try connection.execute(
            "SELECT confdeltype FROM pg_constraint WHERE conrelid = 'bad_notes'::regclass AND contype = 'f'"
        ).single().string(0)
        #expect(cascade == "a")  // NO ACTION, which the cascade rule rejects
    }
}
