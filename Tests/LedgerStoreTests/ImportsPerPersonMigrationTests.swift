import Foundation
import LedgerTestSupport
import PostgresClient
import Testing

@testable import LedgerStore

/// Migration 0015 on databases made before it: waiting jobs that repeat a waiting job's
/// bytes (the race of issue 20, F9, made them) are cancelled before the index that forbids
/// them is built; existing imports get each person's numbers in the order they came (F13).
@Suite("Migration 0015 (imports per person)")
struct ImportsPerPersonMigrationTests {
    /// A fresh database migrated to 0014, with users `handles`; returns the connection, the
    /// users' ids and a closure that drops the database.
    static func previousSchema(handles: [String]) throws -> (Connection, [Int64], () -> Void) {
        let database = try TestDatabase.fresh()
        let connection = try Connection(conninfo: database.conninfo)
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version <= 14 }).migrate(on: connection)
        let ids = try handles.map { handle in
            try connection.execute(
                "INSERT INTO users (handle, handle_key, time_zone) VALUES ($1, $1, 'UTC') RETURNING id",
                [.text(handle)]
            ).single().int64(0) ?? 0
        }
        return (connection, ids, { try? TestDatabase.drop(database.name) })
    }

    /// Adds a job as the server did before 0015 and returns its id.
    static func job(
        _ connection: Connection, userID: Int64, sha: Character, state: String, minutesAgo: Int
    ) throws -> Int64 {
        try connection.execute(
            """
            INSERT INTO import_jobs (user_id, file_name, size_bytes, sha256, spool_host, spool_path, state, created_at,
                started_at, finished_at, error)
            VALUES ($1, 'export.zip', 1, $2, 'here', '/spool/x', $3, now() - make_interval(mins => $4),
                CASE WHEN $3 <> 'queued' THEN now() END, CASE WHEN $3 IN ('done', 'failed', 'cancelled') THEN now() END,
                CASE WHEN $3 = 'failed' THEN 'no export' END)
            RETURNING id
            """, [.int64(userID), .text(String(repeating: sha, count: 64)), .text(state), .int(minutesAgo)]
        ).single().int64(0) ?? 0
    }

    @Test("of waiting jobs with the same bytes the running one, else the oldest, stays; the others are cancelled")
    func duplicatesCancelled() throws {
        let (connection, users, drop) = try Self.previousSchema(handles: ["anna", "ben"])
        defer {
            connection.close()
            drop()
        }
        let (anna, ben) = (users[0], users[1])
        let kept = [
            try Self.job(connection, userID: anna, sha: "a", state: "queued", minutesAgo: 9),
            try Self.job(connection, userID: anna, sha: "b", state: "running", minutesAgo: 2),
            try Self.job(connection, userID: anna, sha: "c", state: "done", minutesAgo: 9),
            try Self.job(connection, userID: anna, sha: "c", state: "queued", minutesAgo: 2),
            try Self.job(connection, userID: ben, sha: "a", state: "queued", minutesAgo: 1),
        ]
        let cancelled = [
            try Self.job(connection, userID: anna, sha: "a", state: "queued", minutesAgo: 5),
            try Self.job(connection, userID: anna, sha: "a", state: "queued", minutesAgo: 1),
            try Self.job(connection, userID: anna, sha: "b", state: "queued", minutesAgo: 9),
        ]
        _ = try Migrator(folder: TestDatabase.migrationsFolder).migrate(on: connection)
        let states = try connection.execute("SELECT id, state, error IS NOT NULL FROM import_jobs ORDER BY id").rows
            .map { (try $0.int64(0) ?? 0, try $0.string(1) ?? "", try $0.bool(2) ?? false) }
        #expect(states.filter { kept.contains($0.0) }.map(\.1) == ["queued", "running", "done", "queued", "queued"])
        #expect(states.filter { cancelled.contains($0.0) }.allSatisfy { $0.1 == "cancelled" && $0.2 })
        // And the index now refuses another waiting job of anna's "a".
        let refused = #expect(throws: PostgresError.self) {
            try connection.execute(
                """
                INSERT INTO import_jobs (user_id, number, file_name, size_bytes, sha256, spool_host, spool_path)
                VALUES ($1, 99, 'again.zip', 1, $2, 'here', '/spool/y')
                """, [.int64(anna), .text(String(repeating: "a", count: 64))])
        }
        #expect(refused?.constraint == ImportJobStore.pendingSHA256Index)
    }

    /// Adds an imports row as `sleepledger import` (or a job's import) did before 0015 and
    /// returns its id.
    static func run(
        _ connection: Connection, userID: Int64, fileName: String, status: String, minutesAgo: Int
    ) throws -> Int64 {
        try connection.execute(
            """
            INSERT INTO imports (user_id, file_name, status, started_at, finished_at, error, size_bytes, sha256, kind)
            VALUES ($1, $2, $3, now() - make_interval(mins => $4), now() - make_interval(mins => $4),
                CASE WHEN $3 = 'failed' THEN 'no export' END, 1, repeat('ab', 32), 'zip')
            RETURNING id
            """, [.int64(userID), .text(fileName), .text(status), .int(minutesAgo)]
        ).single().int64(0) ?? 0
    }

    @Test(
        "each person's jobs and the imports no job made are numbered 1, 2, 3 in the order they came; a job's import takes none"
    )
    func numbersBackfilled() throws {
        let (connection, users, drop) = try Self.previousSchema(handles: ["anna", "ben", "cleo"])
        defer {
            connection.close()
            drop()
        }
        let (anna, ben) = (users[0], users[1])
        // Interleaved across people, as one global sequence numbered them.
        let bensJob = try Self.job(connection, userID: ben, sha: "a", state: "done", minutesAgo: 60)
        let command = try Self.run(
            connection, userID: anna, fileName: "/data/export.zip", status: "succeeded", minutesAgo: 50)
        let done = try Self.job(connection, userID: anna, sha: "b", state: "done", minutesAgo: 40)
        let donesImport = try Self.run(
            connection, userID: anna, fileName: "export.zip", status: "succeeded", minutesAgo: 39)
        try connection.execute(
            "UPDATE import_jobs SET import_id = $1 WHERE id = $2", [.int64(donesImport), .int64(done)])
        let failed = try Self.job(connection, userID: anna, sha: "c", state: "failed", minutesAgo: 30)
        try connection.execute(
            """
            UPDATE import_jobs SET started_at = now() - interval '30 min', finished_at = now() - interval '29 min'
            WHERE id = $1
            """, [.int64(failed)])
        let failedsImport = try Self.run(
            connection, userID: anna, fileName: "export.zip", status: "failed", minutesAgo: 30)
        let failedCommand = try Self.run(connection, userID: anna, fileName: "x.csv", status: "failed", minutesAgo: 20)
        let queued = try Self.job(connection, userID: anna, sha: "d", state: "queued", minutesAgo: 10)
        _ = try Migrator(folder: TestDatabase.migrationsFolder).migrate(on: connection)

        func numbers(_ table: String, _ ids: [Int64]) throws -> [Int64?] {
            try ids.map { id in
                try connection.execute("SELECT number FROM \(table) WHERE id = $1", [.int64(id)]).single().int64(0)
            }
        }
        #expect(try numbers("import_jobs", [bensJob, done, failed, queued]) == [1, 2, 3, 5])
        #expect(try numbers("imports", [command, donesImport, failedsImport, failedCommand]) == [1, nil, nil, 4])
        let counters = try connection.execute("SELECT user_id, last_number FROM import_counters ORDER BY user_id").rows
            .map { [try $0.int64(0), try $0.int64(1)] }
        #expect(counters == [[anna, 5], [ben, 1], [users[2], 0]])
        // The next number of a person follows their last.
        let next = try ImportJobStore(connection: connection).enqueue(
            userID: anna, fileName: "next.zip", contentType: nil, sizeBytes: 1,
            sha256: String(repeating: "e", count: 64), spoolHost: "here", spoolPath: "/spool/z")
        #expect(next?.number == 6)
    }
}
