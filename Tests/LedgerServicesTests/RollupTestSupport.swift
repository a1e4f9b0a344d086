import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures

@testable import LedgerServices

/// A migrated database plus helpers to import samples the way the importer does and to
/// snapshot every rollup result as text.
struct RollupFixture {
    let conninfo: String
    let connection: Connection

    init() throws {
        conninfo = try TestDatabase.migrated().conninfo
        connection = try Connection(conninfo: conninfo)
    }

    @discardableResult
    func addUser(_ handle: String, zone: String = "Europe/Berlin", goals: SleepGoals = SleepGoals()) throws -> User {
        try UserStore(connection: connection).add(handle: handle, timeZone: zone, goals: goals)
    }

    /// Stores `samples` (duplicates ignored) and marks the user dirty from the earliest
    /// affected wake day minus one, as `sleepledger import` does.
    func importSamples(_ samples: [SleepSample], userID: Int64, zone: String) throws {
        guard let earliestEnd = samples.map(\.end).min() else { return }
        let timeZone = try requireZone(zone)
        let dirtyFrom = LookBack.firstChangedWakeDay(
            earliestSampleWakeDay: LocalTime.localDate(of: earliestEnd, in: timeZone))
        try connection.transaction { connection in
            try connection.execute(
                "CREATE TEMP TABLE IF NOT EXISTS incoming_samples (LIKE sleep_samples) ON COMMIT DELETE ROWS")
            try connection.copyIn(
                """
                COPY incoming_samples (user_id, source, start_at, end_at, stage, time_zone, printed_utc_offset)
                FROM STDIN
                """
            ) { writer in
                for sample in samples {
                    try writer.writeRow(
                        [
                            .int64(userID), .text(sample.source), .timestamp(epochSeconds: sample.start),
                            .timestamp(epochSeconds: sample.end), .text(sample.stage.rawValue),
                            sample.timeZoneIdentifier.map { .text($0) }, sample.printedUTCOffset.map { .int(Int($0)) },
                        ] as [SQLValue?])
                }
            }
            try connection.execute(
                "INSERT INTO sleep_samples SELECT * FROM incoming_samples ON CONFLICT DO NOTHING")
            try connection.execute(
                "UPDATE rollup_state SET dirty_from = LEAST(dirty_from, $2), updated_at = now() WHERE user_id = $1",
                [.int64(userID), .date(dirtyFrom)])
        }
    }

    func runner(
        _ settings: RollupSettings = RollupSettings(), beforeCommit: (@Sendable (Int64) throws -> Void)? = nil
    ) -> RollupService {
        RollupService(
            database: LedgerDatabase(
                configuration: DatabaseConfiguration(source: .url(conninfo)),
                migrationsFolder: TestDatabase.migrationsFolder),
            settings: settings, beforeCommit: beforeCommit)
    }

    /// Every row of nights, naps and summaries as text, in key order.
    func snapshot(includingComputedAt: Bool = true) throws -> [String] {
        var lines: [String] = []
        for (table, order) in [("nights", "user_id, wake_day"), ("naps", "user_id, start_at")] {
            lines += try connection.execute("SELECT t::text FROM \(table) t ORDER BY \(order)").rows.map {
                "\(table) " + (try $0.string(0) ?? "NULL")
            }
        }
        let computed = includingComputedAt ? ", computed_at" : ""
        lines += try connection.execute(
            """
            SELECT row(user_id, horizon, as_of, debt_seconds, net_balance_seconds, severity, score, grade,
                       tracked_nights, last_night_wake_day, last_night_asleep_seconds, summary\(computed))::text
            FROM summaries ORDER BY user_id, horizon
            """
        ).rows.map { "summaries " + (try $0.string(0) ?? "NULL") }
        lines += try connection.execute(
            """
            SELECT row(user_id, as_of, rules_version, need_seconds, need_method, msfsc_seconds, need, chronotype\(computed))::text
            FROM personal_estimates ORDER BY user_id
            """
        ).rows.map { "personal_estimates " + (try $0.string(0) ?? "NULL") }
        return lines
    }

    func state(_ userID: Int64) throws -> Row {
        try connection.execute(
            """
            SELECT dirty_from, summaries_stale, last_as_of, last_error, failure_count, last_rollup_at
            FROM rollup_state WHERE user_id = $1
            """, [.int64(userID)]
        ).single()
    }

    func count(_ table: String, userID: Int64) throws -> Int {
        try connection.execute("SELECT count(*) FROM \(table) WHERE user_id = $1", [.int64(userID)]).single()
            .int(0) ?? -1
    }
}

/// The zone named `identifier`, or an error.
func requireZone(_ identifier: String) throws -> TimeZone {
    guard let zone = TimeZone(identifier: identifier) else {
        throw ServiceError(.invalidInput, "unknown zone \(identifier)")
    }
    return zone
}

/// Epoch seconds of a UTC wall-clock time.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int64 {
    Int64(LocalDate(year: year, month: month, day: day).daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60)
}
