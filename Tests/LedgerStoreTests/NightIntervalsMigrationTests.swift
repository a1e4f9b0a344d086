import LedgerTestSupport
import PostgresClient
import SleepCore
import Testing

@testable import LedgerStore

@Suite("Migration 0006 (rollup storage): nights' asleep intervals as bigint[]")
struct NightIntervalsMigrationTests {
    @Test("nights stored as JSONB before 0006 read back with the same intervals after it")
    func convertsStoredNights() throws {
        let database = try TestDatabase.fresh()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let all = try Migrator(folder: TestDatabase.migrationsFolder)
        _ = try Migrator(migrations: all.migrations.filter { $0.version <= 5 }).migrate(on: connection)
        // A users row as the schema before 0007 holds it (no handle_key yet; UserStore.add
        // writes tables of later migrations too).
        let userID = try #require(
            try connection.execute(
                "INSERT INTO users (handle, time_zone) VALUES ('anna', 'Europe/Berlin') RETURNING id"
            ).single().int64(0))
        try connection.execute("INSERT INTO rollup_state (user_id) VALUES ($1)", [.int64(userID)])
        // Written as the 0003 schema stored them: [[start, end], ...] JSON, and no intervals.
        for (day, intervals) in [(30, "[[1743286500, 1743300000], [1743301800, 1743313500]]"), (31, "[]")] {
            try connection.execute(
                """
                INSERT INTO nights (user_id, wake_day, time_zone, bedtime, onset, wake, asleep_seconds,
                    time_in_bed_seconds, awake_seconds, wake_ups, deep_seconds, rem_seconds, core_seconds,
                    unspecified_seconds, efficiency, has_stage_data, source, fragment_count, asleep_intervals,
                    stage_segments)
                VALUES ($1, $2, 'Europe/Berlin', to_timestamp(1743285600), to_timestamp(1743286500),
                    to_timestamp(1743313500), 25200, 27900, 1800, 1, 0, 0, 0, 25200, 0.9, false, 'Watch', 1,
                    $3::jsonb, '[]')
                """, [.int64(userID), .date(LocalDate(year: 2025, month: 3, day: day)), .text(intervals)])
        }
        _ = try all.migrate(on: connection)

        let nights = try NightStore(connection: connection).nights(userID: userID)
        #expect(
            nights.map(\.asleepIntervals) == [
                [
                    TimeSpan(start: 1_743_286_500, end: 1_743_300_000),
                    TimeSpan(start: 1_743_301_800, end: 1_743_313_500),
                ],
                [],
            ])
        let stored = try connection.execute(
            "SELECT asleep_intervals::text FROM nights WHERE user_id = $1 ORDER BY wake_day", [.int64(userID)])
        #expect(try stored.rows.map { try $0.string(0) } == ["{1743286500,1743300000,1743301800,1743313500}", "{}"])
        // Summaries compress with lz4 where the server has it (the default pglz otherwise).
        let hasLZ4 = try connection.execute(
            "SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
        ).first?.bool(0)
        let compression = try connection.execute(
            """
            SELECT attcompression::text FROM pg_attribute
            WHERE attrelid = 'summaries'::regclass AND attname = 'summary'
            """
        ).first?.string(0)
        #expect(compression == (hasLZ4 == true ? "l" : ""))
        // An odd number of bounds is refused by the table.
        #expect(throws: PostgresError.self) {
            try connection.execute(
                "UPDATE nights SET asleep_intervals = '{1,2,3}' WHERE user_id = $1", [.int64(userID)])
        }
    }
}
