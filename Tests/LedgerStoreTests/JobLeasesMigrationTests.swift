import Foundation
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerStore

/// Migration 0019 on a database made before it: jobs running under the advisory-lock
/// claim get one lease from the migration, under a token no worker has, so the next worker
/// takes them once it lapses; other jobs get no lease; the pid column is gone.
@Suite("Migration 0019 (job leases)")
struct JobLeasesMigrationTests {
    @Test("a job running before 0019 gets one 60 s lease under a token no worker has; a waiting one none")
    func runningJobsGetOneLease() throws {
        let database = try TestDatabase.fresh()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version <= 16 }).migrate(on: connection)
        let userID = try #require(
            try connection.execute(
                "INSERT INTO users (handle, handle_key, time_zone) VALUES ('anna', 'anna', 'UTC') RETURNING id"
            ).single().int64(0))
        for (number, state) in [(1, "running"), (2, "queued")] {
            try connection.execute(
                """
                INSERT INTO import_jobs (user_id, number, file_name, size_bytes, sha256, spool_host, spool_path, state,
                    started_at, worker_pid)
                VALUES ($1, $2, 'export.zip', 1, $4, 'here', '/spool/x', $3,
                    CASE WHEN $3 = 'running' THEN now() END, CASE WHEN $3 = 'running' THEN 4242 END)
                """, [.int64(userID), .int(number), .text(state), .text(String(repeating: "\(number)", count: 64))])
        }
        _ = try all.migrate(on: connection)
        let rows = try connection.execute(
            """
            SELECT state, claim_token::text,
                   claimed_until BETWEEN now() + interval '50 seconds' AND now() + interval '61 seconds'
            FROM import_jobs ORDER BY number
            """
        ).rows.map { (try $0.string(0), try $0.string(1), try $0.bool(2)) }
        #expect(rows.count == 2)
        #expect(rows.first?.0 == "running" && rows.first?.1 == "00000000-0000-0000-0000-000000000000")
        #expect(rows.first?.2 == true)
        #expect(rows.last?.0 == "queued" && rows.last?.1 == nil && rows.last?.2 == nil)
        let pid = try connection.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = 'import_jobs' AND column_name = 'worker_pid'"
        ).single().int64(0)
        #expect(pid == 0)
    }
}
