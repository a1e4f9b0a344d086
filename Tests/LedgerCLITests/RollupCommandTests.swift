import Foundation
import Glibc
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("sleepledger rollup")
struct RollupCommandTests {
    /// Adds `count` users in Europe/Berlin, each with `nights` nights of 7.5 h of core
    /// sleep in 30-minute samples (23:00-06:30 UTC), marked dirty as the importer does.
    static func seed(_ conninfo: String, users count: Int, nights: Int) throws {
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        // Lower-case ASCII handles are their own keys (UserHandle.key).
        try connection.execute(
            """
            INSERT INTO users (handle, handle_key, time_zone)
            SELECT 'user' || n, 'user' || n, 'Europe/Berlin' FROM generate_series(1, $1) n
            """, [.int(count)])
        try connection.execute("INSERT INTO rollup_state (user_id) SELECT id FROM users ON CONFLICT DO NOTHING")
        try connection.execute(
            """
            INSERT INTO sleep_samples (user_id, source, start_at, end_at, stage)
            SELECT u.id, 'Watch', s, s + interval '30 minutes', 'core'
            FROM users u,
                 generate_series(0, $1 - 1) d,
                 generate_series(timestamptz '2024-01-01 23:00+00' + d * interval '1 day',
                                 timestamptz '2024-01-02 06:00+00' + d * interval '1 day', interval '30 minutes') s
            """, [.int(nights)])
        try connection.execute("UPDATE rollup_state SET dirty_from = date '2023-12-31'")
    }

    static func environment() throws -> (environment: [String: String], conninfo: String) {
        let database = try TestDatabase.migrated()
        return (
            ["DATABASE_URL": database.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder],
            database.conninfo
        )
    }

    static func scalar(_ conninfo: String, _ sql: String) throws -> Int64 {
        let connection = try Connection(conninfo: conninfo)
        defer { connection.close() }
        return try connection.execute(sql).single().int64(0) ?? -1
    }

    @Test("with users but no samples: exit 0, a one-line report and a hint to import first")
    func noSamples() throws {
        let (environment, _) = try Self.environment()
        var (code, captured) = runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment)
        #expect(code == .success)
        (code, captured) = runTool(["rollup", "--as-of", "2024-03-01"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(
            captured.printed.hasPrefix(
                "rollup: 1 users done (0 rebuilt from a changed day, 1 in full), 0 up to date, 0 skipped, 0 failed, 0 nights written, "
            ))
        #expect(captured.errorText.contains("no sleep samples are stored yet"))
        (code, captured) = runTool(["rollup", "--as-of", "2024-03-01", "--format", "json"], environment: environment)
        #expect(code == .success)
        #expect(captured.printed.contains("\"users_up_to_date\" : 1"))
        #expect(captured.printed.contains("\"duration_seconds\""))
    }

    @Test("nights and summaries written for seeded users; --all rewrites the same rows")
    func seededRun() throws {
        let (environment, conninfo) = try Self.environment()
        try Self.seed(conninfo, users: 3, nights: 10)
        var (code, captured) = runTool(["rollup", "--as-of", "2024-01-12", "--workers", "2"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("3 users done"))
        #expect(captured.printed.contains("30 nights written"))
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM summaries") == 18)
        // Ten nights of 7.5 h against an 8 h target: 30 min of debt each, 5 h in the month.
        #expect(
            try Self.scalar(conninfo, "SELECT min(debt_seconds) FROM summaries WHERE horizon = 'monthly'") == 18_000)
        #expect(
            try Self.scalar(conninfo, "SELECT max(debt_seconds) FROM summaries WHERE horizon = 'monthly'") == 18_000)
        (code, captured) = runTool(
            ["rollup", "--user", "USER2", "--all", "--as-of", "2024-01-12"], environment: environment)
        #expect(code == .success)
        #expect(captured.printed.contains("1 users done (0 rebuilt from a changed day, 1 in full)"))
    }

    @Test(
        "bad options are usage errors (64); an unknown user is 66",
        arguments: [
            (["rollup", "--workers", "0"], ExitCode.usage), (["rollup", "--as-of", "2024-13-01"], .usage),
            (["rollup", "--format", "csv"], .usage), (["rollup", "extra"], .usage),
            (["rollup", "--user", "nobody"], .noInput),
        ])
    func badInvocations(arguments: [String], expected: ExitCode) throws {
        let (environment, _) = try Self.environment()
        let (code, captured) = runTool(arguments, environment: environment)
        #expect(code == expected, "\(captured.errorText)")
        #expect(captured.errorText.hasPrefix("sleepledger: "))
    }

    /// Starts the built `sleepledger rollup --workers 1` and waits until it has committed
    /// at least one user.
    static func startRollup(_ environment: [String: String], conninfo: String) throws -> Process {
        let process = Process()
        process.executableURL = builtProductsDirectory().appendingPathComponent("sleepledger")
        process.arguments = ["rollup", "--workers", "1", "--as-of", "2024-03-01"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning,
            try scalar(conninfo, "SELECT count(*) FROM summaries") == 0
        {
            usleep(10_000)
        }
        return process
    }

    /// Seeds 120 users of 45 nights, starts a rollup, stops it with `stop` once it has stored
    /// a summary and checks that every user it got to has all six; how many users that is.
    static func interruptedRollup(
        _ stop: (Process) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (environment: [String: String], conninfo: String, process: Process, done: Int64) {
        let (environment, conninfo) = try Self.environment()
        try Self.seed(conninfo, users: 120, nights: 45)
        let process = try Self.startRollup(environment, conninfo: conninfo)
        #expect(
            process.isRunning, "the rollup finished before it could be stopped; seed more users",
            sourceLocation: sourceLocation)
        stop(process)
        process.waitUntilExit()
        let done = try Self.scalar(conninfo, "SELECT count(DISTINCT user_id) FROM summaries")
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM summaries") == done * 6, sourceLocation: sourceLocation)
        return (environment, conninfo, process, done)
    }

    @Test("a runner killed with SIGKILL mid-run leaves whole users only; the next run finishes the rest")
    func killedRunner() throws {
        let (environment, conninfo, _, done) = try Self.interruptedRollup { kill($0.processIdentifier, SIGKILL) }
        #expect(done > 0 && done < 120)
        // Every user is either complete (6 summaries, 45 nights, marks cleared) or untouched.
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM nights") == done * 45)
        #expect(
            try Self.scalar(conninfo, "SELECT count(*) FROM rollup_state WHERE dirty_from IS NOT NULL") == 120 - done)

        let (code, captured) = runTool(["rollup", "--as-of", "2024-03-01"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.contains("\(120 - done) users done"))
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM summaries") == 720)
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM nights") == 120 * 45)
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM rollup_state WHERE dirty_from IS NOT NULL") == 0)
    }

    @Test("SIGTERM mid-run stops after the current user with exit 75 and a report; the next run finishes")
    func terminatedRunner() throws {
        let (environment, conninfo, process, _) = try Self.interruptedRollup { $0.terminate() }
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 75)
        let (code, _) = runTool(["rollup", "--as-of", "2024-03-01"], environment: environment)
        #expect(code == .success)
        #expect(try Self.scalar(conninfo, "SELECT count(*) FROM summaries") == 720)
    }
}
