import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// The server's row-level security policies compare the user key with the setting
/// directly, with no sub-query (which Citus refuses on distributed tables): they still fail
/// closed, still use the `user_id` indexes, and an older database is brought to them by
/// `roles.sql`.
@Suite("Row-level security policies without sub-queries")
struct PolicyExpressionTests {
    /// The server's policy of every user-data table as PostgreSQL prints it back
    /// (`qual`, `with check`), by table.
    static func serverPolicies(_ connection: Connection) throws -> [String: (qual: String?, check: String?)] {
        var policies: [String: (qual: String?, check: String?)] = [:]
        for row in try connection.execute(
            """
            SELECT c.relname, pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)
            FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
            WHERE p.polname = 'sleepledger_server_own_rows'
            """
        ).rows {
            policies[try row.string(0) ?? ""] = (try row.string(1), try row.string(2))
        }
        return policies
    }

    /// The policy expressions of the whole database (every policy) that contain `SELECT`.
    static func subQueryCount(_ connection: Connection) throws -> Int {
        try connection.execute(
            """
            SELECT count(*) FROM pg_policy
            WHERE pg_get_expr(polqual, polrelid) ILIKE '%select%' OR pg_get_expr(polwithcheck, polrelid) ILIKE '%select%'
            """
        ).single().int(0) ?? -1
    }

    /// Every row of `pg_policy`, with its row version: unchanged when nothing was altered.
    static func policyVersions(_ connection: Connection) throws -> String {
        try connection.execute("SELECT string_agg(oid::text || ':' || xmin::text, ',' ORDER BY oid) FROM pg_policy")
            .single().string(0) ?? ""
    }

    @Test("every user-data table's server policy reads the setting directly, for reading and for writing")
    func noSubQuery() throws {
        let connection = try Connection(conninfo: try TestDatabase.migrated().conninfo)
        defer { connection.close() }
        let policies = try Self.serverPolicies(connection)
        #expect(Set(RowLevelSecurityTests.tables.map(\.0)).isSubset(of: policies.keys))
        for table in policies.keys {
            let key = table == "users" ? "id" : "user_id"
            let expected = "(\(key) = (NULLIF(current_setting('sleepledger.user_id'::text, true), ''::text))::bigint)"
            #expect(policies[table]?.qual == expected, "\(table)")
            #expect(policies[table]?.check == expected, "\(table)")
        }
        #expect(try Self.subQueryCount(connection) == 0)
    }

    @Test("an empty setting, as after a transaction that named a user, names no one")
    func emptySettingSeesNothing() throws {
        let (connection, _, _) = try RowLevelSecurityTests.twoUsers()
        defer { connection.close() }
        for (table, _) in RowLevelSecurityTests.tables {
            let seen = try connection.transaction { connection in
                try connection.execute("SET LOCAL ROLE \(DatabaseRoles.server)")
                try connection.execute("SET LOCAL \(DatabaseRoles.currentUserSetting) = ''")
                return try connection.execute("SELECT count(*) FROM \(table)").single().int(0)
            }
            #expect(seen == 0, "\(table)")
        }
    }

    @Test("a read of the named user's rows, with no condition of its own, is an index scan on user_id")
    func usesTheUserIndexes() throws {
        let connection = try Connection(conninfo: try TestDatabase.migrated().conninfo)
        defer { connection.close() }
        // 2,000 people with 30 samples each: the policy alone must pick out one person's rows.
        try connection.execute(
            """
            INSERT INTO users (handle, handle_key, time_zone)
            SELECT 'user' || g, 'user' || g, 'UTC' FROM generate_series(1, 2000) g
            """)
        try connection.execute(
            """
            INSERT INTO sleep_samples (user_id, source, start_at, end_at, stage)
            SELECT u.id, 'Watch', timestamptz '2024-01-01 23:00+00' + n * interval '1 day',
                   timestamptz '2024-01-02 07:00+00' + n * interval '1 day', 'core'
            FROM users u CROSS JOIN generate_series(1, 30) n
            """)
        try connection.execute("ANALYZE users")
        try connection.execute("ANALYZE sleep_samples")
        let someone = try connection.execute("SELECT id FROM users ORDER BY id OFFSET 1000 LIMIT 1").single().int64(0)
        let user = try #require(someone)
        for (query, key) in [
            ("SELECT start_at, end_at FROM sleep_samples", "user_id"), ("SELECT handle, time_zone FROM users", "id"),
        ] {
            let plan = try RowLevelSecurityTests.asServer(connection, userID: user) { connection in
                try connection.execute("EXPLAIN \(query)").rows.compactMap { try $0.string(0) }.joined(separator: "\n")
            }
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            #expect(plan.contains("Index Cond: (\(key) = (NULLIF(current_setting("), "\(plan)")
            let count = try RowLevelSecurityTests.asServer(connection, userID: user) { connection in
                try connection.execute("SELECT count(*) FROM (\(query)) q").single().int(0)
            }
            #expect(count == (key == "id" ? 1 : 30))
        }
    }

    @Test("roles.sql changes the policies of an older database (a sub-select), once, and isolation holds")
    func upgradesOlderPolicies() throws {
        let (connection, anna, _) = try RowLevelSecurityTests.twoUsers()
        defer { connection.close() }
        // The server's policy as roles.sql made it before: the setting read in a sub-select.
        let older = "(SELECT nullif(current_setting('sleepledger.user_id', true), '')::bigint)"
        let tables = try Self.serverPolicies(connection).keys
        for table in tables {
            let key = table == "users" ? "id" : "user_id"
            try connection.execute("DROP POLICY sleepledger_server_own_rows ON \(table)")
            try connection.execute(
                """
                CREATE POLICY sleepledger_server_own_rows ON \(table) TO sleepledger_server
                USING (\(key) = \(older)) WITH CHECK (\(key) = \(older))
                """)
        }
        #expect(try Self.subQueryCount(connection) == tables.count)

        try TestDatabase.applyRoles(on: connection)
        #expect(try Self.subQueryCount(connection) == 0)
        let policies = try Self.serverPolicies(connection)
        #expect(Set(policies.keys) == Set(tables))
        #expect(policies.values.allSatisfy { $0.qual?.contains("NULLIF(current_setting(") == true })

        // Run again, it changes nothing.
        let versions = try Self.policyVersions(connection)
        try TestDatabase.applyRoles(on: connection)
        #expect(try Self.policyVersions(connection) == versions)

        for (table, key) in RowLevelSecurityTests.tables {
            let seen = try RowLevelSecurityTests.asServer(connection, userID: anna.id) { connection in
                try connection.execute("SELECT DISTINCT \(key) FROM \(table)").rows.map { try $0.int64(0) }
            }
            #expect(seen == [anna.id], "\(table)")
            #expect(
                try RowLevelSecurityTests.asServer(connection, userID: nil) {
                    try $0.execute("SELECT count(*) FROM \(table)").single().int(0)
                } == 0, "\(table)")
        }
    }
}
