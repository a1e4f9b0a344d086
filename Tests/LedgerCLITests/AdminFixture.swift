import AdminCLI
import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Synchronization

/// One migrated test database filled the way the rollup would fill it, shared by every
/// admin test (the admin tool never writes, so sharing is safe). Fixed seed, fixed as-of
/// day and fixed bookkeeping times: nothing in the output depends on the real clock.
///
/// Users:
/// - `anna` (Europe/Berlin, 8h/7h): generator seed 42 nights 2024-12-01 to 2025-03-16,
///   summaries as of 2025-03-17 computed at 2025-03-17 04:00 UTC, two imports.
/// - `dan` (America/New_York, target 7h 30m, minimum 6h 30m): seed 7, a shorter sleeper,
///   with new samples waiting for the next rollup.
/// - `cara` (UTC): rolled up, but no nights.
/// - `ben` (Asia/Tokyo): added, never rolled up.
struct AdminFixture: Sendable {
    /// Superuser conninfo (for the fixture's own writes and checks).
    let conninfo: String
    /// The same database as `sleepledger_readonly`.
    let readOnlyConninfo: String
    /// The stored nights of anna and dan.
    let annaNights: [Night]
    let annaNaps: [Nap]
    let danNights: [Night]

    static let asOf = LocalDate(year: 2025, month: 3, day: 17)
    static let rollupAt = Int64(asOf.daysSinceEpoch) * 86_400 + 4 * 3600
    static let importAt = Int64(asOf.daysSinceEpoch) * 86_400 - 2 * 86_400 + 19 * 3600 + 1800

    /// The environment for `sleepledger-admin` runs against the fixture.
    var environment: [String: String] {
        ["SLEEPLEDGER_ADMIN_DATABASE_URL": readOnlyConninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
    }

    private static let made = Mutex<AdminFixture?>(nil)

    /// The shared fixture, made on first use.
    static func shared() throws -> AdminFixture {
        try made.withLock { existing in
            if let existing { return existing }
            let fixture = try make()
            existing = fixture
            return fixture
        }
    }

    /// A fixture of its own, in a new database: for a test that changes the database's
    /// settings. Its output is the shared fixture's.
    static func make() throws -> AdminFixture {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        let users = UserStore(connection: connection)
        let anna = try users.add(handle: "anna", timeZone: "Europe/Berlin")
        let dan = try users.add(
            handle: "dan", timeZone: "America/New_York",
            goals: SleepGoals(targetSeconds: 7 * 3600 + 1800, minimumSeconds: 6 * 3600 + 1800))
        let cara = try users.add(handle: "cara", timeZone: "UTC")
        _ = try users.add(handle: "ben", timeZone: "Asia/Tokyo")

        let first = LocalDate(year: 2024, month: 12, day: 1)
        let last = LocalDate(year: 2025, month: 3, day: 16)
        let annaSamples = SleepStreamGenerator(seed: 42).samples(from: first, through: last)
        let annaBuilt = NightBuilder().build(from: annaSamples, userTimeZoneIdentifier: "Europe/Berlin")
        let danConfiguration = SleepStreamConfiguration(
            homeTimeZoneIdentifier: "America/New_York", personName: "Dan", printedUTCOffset: -18000,
            meanSleepHours: 6.4)
        let danSamples = SleepStreamGenerator(seed: 7, configuration: danConfiguration).samples(
            from: first, through: last)
        let danBuilt = NightBuilder().build(from: danSamples, userTimeZoneIdentifier: "America/New_York")

        let nights = NightStore(connection: connection)
        let summaries = SummaryStore(connection: connection)
        try nights.replace(
            userID: anna.id, from: nil, nights: annaBuilt.nights, naps: annaBuilt.naps,
            confidences: NightConfidence.assess(nights: annaBuilt.nights, samples: annaSamples))
        try nights.replace(
            userID: dan.id, from: nil, nights: danBuilt.nights, naps: danBuilt.naps,
            confidences: NightConfidence.assess(nights: danBuilt.nights, samples: danSamples))
        try summaries.replace(
            userID: anna.id, summaries: SummaryBuilder(nights: annaBuilt.nights).summaries(asOf: asOf),
            computedAt: rollupAt)
        try summaries.replace(
            userID: dan.id, summaries: SummaryBuilder(nights: danBuilt.nights, goals: dan.goals).summaries(asOf: asOf),
            computedAt: rollupAt + 60)
        try summaries.replace(
            userID: cara.id, summaries: SummaryBuilder(nights: []).summaries(asOf: asOf), computedAt: rollupAt)
        for (user, at) in [(anna, rollupAt), (dan, rollupAt + 60), (cara, rollupAt)] {
            try connection.execute(
                "UPDATE rollup_state SET last_as_of = $2, last_rollup_at = $3 WHERE user_id = $1",
                [.int64(user.id), .date(asOf), .timestamp(epochSeconds: at)])
        }
        // dan has new samples waiting for the next rollup.
        try connection.execute(
            "UPDATE rollup_state SET dirty_from = '2025-03-16' WHERE user_id = $1", [.int64(dan.id)])
        let insertImport = """
            INSERT INTO imports (user_id, file_name, size_bytes, sha256, kind, status, started_at, finished_at,
                                 samples_read, samples_inserted, samples_duplicate, samples_rejected, diagnostics)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            """
        try connection.execute(
            insertImport,
            [
                .int64(anna.id), .text("export.zip"), .int64(48_213_377), .text(String(repeating: "ab", count: 32)),
                .text("zip"), .text("succeeded"), .timestamp(epochSeconds: importAt - 86_400 * 30),
                .timestamp(epochSeconds: importAt - 86_400 * 30 + 41), .int64(3120), .int64(3120), .int64(0),
                .int64(0), .json("[]"),
            ])
        try connection.execute(
            insertImport,
            [
                .int64(anna.id), .text("sleep, march.csv"), .int64(20_480), .text(String(repeating: "cd", count: 32)),
                .text("csv"), .text("succeeded"), .timestamp(epochSeconds: importAt),
                .timestamp(epochSeconds: importAt + 3), .int64(412), .int64(380), .int64(30), .int64(2),
                .json(
                    #"[{"kind": "endBeforeStart", "message": "sample ends before it starts", "count": 1}, {"kind": "unknownStage", "message": "unknown sleep value HKCategoryValueSleepAnalysisNap", "count": 1}]"#
                ),
            ])
        let readOnly = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.readOnly, in: database.conninfo)
        return AdminFixture(
            conninfo: database.conninfo, readOnlyConninfo: readOnly, annaNights: annaBuilt.nights,
            annaNaps: annaBuilt.naps, danNights: danBuilt.nights)
    }
}

/// Runs `sleepledger-admin` in-process (not a terminal: no colour, ASCII bars).
func runAdmin(_ arguments: [String], environment: [String: String]) -> (ExitCode, CapturedConsole) {
    let captured = CapturedConsole()
    let code = AdminTool.run(arguments: arguments, environment: environment, console: captured.console)
    return (code, captured)
}

/// Parses RFC 4180 CSV (quoted fields with doubled quotes, CRLF records) into rows.
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var characters = Array(text.unicodeScalars)[...]
    while let c = characters.popFirst() {
        if quoted {
            if c == "\"" {
                if characters.first == "\"" {
                    field.unicodeScalars.append("\"")
                    characters = characters.dropFirst()
                } else {
                    quoted = false
                }
            } else {
                field.unicodeScalars.append(c)
            }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            row.append(field)
            field = ""
        } else if c == "\r", characters.first == "\n" {
            characters = characters.dropFirst()
            row.append(field)
            rows.append(row)
            row = []
            field = ""
        } else {
            field.unicodeScalars.append(c)
        }
    }
    if !field.isEmpty || !row.isEmpty {
        row.append(field)
        rows.append(row)
    }
    return rows
}
