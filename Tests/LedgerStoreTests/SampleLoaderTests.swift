import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import Synchronization
import Testing

@Suite("SampleLoader")
struct SampleLoaderTests {
    struct Planted: Error {}

    /// A migrated database with one user in `zone`; returns the connection and user.
    static func setUp(zone: String = "Europe/Berlin") throws -> (Connection, User) {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        let user = try UserStore(connection: connection).add(handle: "anna", timeZone: zone)
        return (connection, user)
    }

    static func audit(_ read: Int, fileName: String = "export.xml") -> ImportAudit {
        var audit = ImportAudit(fileName: fileName, isFromStandardInput: false)
        audit.sizeBytes = 1234
        audit.sha256 = String(repeating: "ab", count: 32)
        audit.kind = "xml"
        audit.samplesRead = read
        audit.samplesAccepted = read
        return audit
    }

    /// Loads `samples` for `user` as one import, as a reader streaming them would.
    static func load(_ samples: [SleepSample], for user: User, with loader: SampleLoader) throws -> ImportOutcome {
        try loader.load(userID: user.id, userTimeZone: user.timeZoneIdentifier, audit: audit(samples.count)) { sink in
            for sample in samples { try sink.append(sample) }
            return audit(samples.count)
        }
    }

    // 2024-03-01T06:00:00Z = 07:00 in Berlin.
    static let morning: Int64 = 1_709_272_800

    @Test func storesNewSamplesCountsDuplicatesAndMarksRollups() throws {
        let (connection, user) = try Self.setUp()
        defer { connection.close() }
        let loader = SampleLoader(connection: connection)
        let night = SleepSample(source: "Watch", start: Self.morning - 8 * 3600, end: Self.morning, stage: .core)
        // Ends 2024-02-28T23:30Z: 00:30 on 2024-02-29 in Berlin (the user's zone), but
        // 2024-02-28 in its own zone, New York.
        let travel = SleepSample(
            source: "Watch", start: 1_709_160_000, end: 1_709_163_000, stage: .deep,
            timeZoneIdentifier: "America/New_York")
        let first = try Self.load([night, travel, night], for: user, with: loader)
        #expect(first.inserted == 2)
        #expect(first.duplicates == 1)
        // Earliest wake day 2024-02-28 (New York) minus one day.
        #expect(first.dirtyFrom == LocalDate(year: 2024, month: 2, day: 27))

        let later = SleepSample(
            source: "Watch", start: Self.morning + 86_400 - 3600, end: Self.morning + 86_400, stage: .rem)
        let second = try Self.load([night, later], for: user, with: loader)
        #expect(second.inserted == 1)
        #expect(second.duplicates == 1)
        // 2024-03-02 minus one day, but the stored mark stays at the earlier 2024-02-27.
        #expect(second.dirtyFrom == LocalDate(year: 2024, month: 3, day: 1))
        #expect(
            try connection.execute("SELECT dirty_from FROM rollup_state WHERE user_id = $1", [.int64(user.id)])
                .single().localDate(0) == LocalDate(year: 2024, month: 2, day: 27))
        #expect(try connection.execute("SELECT count(*) FROM sleep_samples").single().int(0) == 3)
        let stored = try connection.execute(
            "SELECT time_zone, import_id FROM sleep_samples WHERE stage = 'rem'"
        ).single()
        #expect(try stored.string("time_zone") == nil)
        #expect(try stored.int64("import_id") == second.importID)
    }

    @Test func anErrorWhileStreamingStoresNothingAndTheFailureIsRecordedAfterwards() throws {
        let (connection, user) = try Self.setUp()
        defer { connection.close() }
        let loader = SampleLoader(connection: connection)
        #expect(throws: Planted.self) {
            try loader.load(userID: user.id, userTimeZone: nil, audit: Self.audit(1)) { sink in
                for minute in 0..<5000 {
                    try sink.append(
                        SleepSample(
                            source: "Watch", start: Self.morning + Int64(minute) * 60,
                            end: Self.morning + Int64(minute) * 60 + 30, stage: .core))
                }
                throw Planted()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.execute("SELECT count(*) FROM sleep_samples").single().int(0) == 0)
        #expect(try connection.execute("SELECT count(*) FROM imports").single().int(0) == 0)
        #expect(
            try connection.execute("SELECT count(*) FROM rollup_state WHERE dirty_from IS NOT NULL").single().int(0)
                == 0)

        var failed = ImportAudit(fileName: "-", isFromStandardInput: true)
        failed.samplesRead = 7
        failed.samplesRejected = 7
        try loader.recordFailure(userID: user.id, audit: failed, error: "-:3: the input is empty")
        let row = try connection.execute(
            "SELECT status, error, file_name, from_standard_input, sha256, kind, samples_rejected, finished_at IS NOT NULL AS finished FROM imports"
        ).single()
        #expect(try row.string("status") == "failed")
        #expect(try row.string("error") == "-:3: the input is empty")
        #expect(try row.bool("from_standard_input") == true)
        #expect(try row.string("sha256") == nil)
        #expect(try row.string("kind") == nil)
        #expect(try row.int("samples_rejected") == 7)
        #expect(try row.bool("finished") == true)
    }

    @Test func aSucceededRowNeedsItsIdentityAndAFailedRowItsError() throws {
        let (connection, user) = try Self.setUp()
        defer { connection.close() }
        #expect(throws: PostgresError.self) {
            try connection.execute(
                "INSERT INTO imports (user_id, file_name, status, finished_at) VALUES ($1, 'x', 'succeeded', now())",
                [.int64(user.id)])
        }
        #expect(throws: PostgresError.self) {
            try connection.execute(
                "INSERT INTO imports (user_id, file_name, status) VALUES ($1, 'x', 'failed')", [.int64(user.id)])
        }
    }
}

@Suite("SampleLoader batches")
struct SampleLoaderBatchTests {
    /// Tiny batches (a few rows each; CopyWriter hands over 256 KiB chunks, so a batch
    /// here is one chunk) and many merges while rows keep arriving.
    @Test func manyBatchesGiveTheSameCountsAsOne() throws {
        let (connection, user) = try SampleLoaderTests.setUp()
        defer { connection.close() }
        let loader = SampleLoader(connection: connection, batchBytes: 1)
        let base = SampleLoaderTests.morning
        // About 74 bytes of COPY text a sample: 4 000 make two chunks, 6 000 three.
        func sample(_ index: Int) -> SleepSample {
            SleepSample(
                source: "Watch", start: base + Int64(index) * 600, end: base + Int64(index) * 600 + 300, stage: .core)
        }
        let first = try SampleLoaderTests.load((0..<4_000).map(sample), for: user, with: loader)
        #expect(first.inserted == 4_000)
        #expect(first.duplicates == 0)
        // 2024-03-01 07:00 Berlin is the earliest end: dirty from 2024-02-29.
        #expect(first.dirtyFrom == LocalDate(year: 2024, month: 2, day: 29))
        // The second run repeats the last 2 000 and adds 2 000 later ones, each twice.
        let second = try SampleLoaderTests.load(
            (2_000..<6_000).map(sample) + (4_000..<6_000).map(sample), for: user, with: loader)
        #expect(second.inserted == 2_000)
        #expect(second.duplicates == 4_000)
        // Sample 4 000 ends 2024-03-01T06:05Z + 2 400 000 s (27 days 18 h 40 min) =
        // 2024-03-29T00:45Z, 01:45 in Berlin: wake day 2024-03-29.
        #expect(second.dirtyFrom == LocalDate(year: 2024, month: 3, day: 28))
        #expect(try connection.execute("SELECT count(*) FROM sleep_samples").single().int(0) == 6_000)
        #expect(!connection.isInTransaction)
    }

    @Test func anErrorBetweenBatchesStoresNothing() throws {
        let (connection, user) = try SampleLoaderTests.setUp()
        defer { connection.close() }
        let loader = SampleLoader(connection: connection, batchBytes: 1)
        #expect(throws: SampleLoaderTests.Planted.self) {
            try loader.load(userID: user.id, userTimeZone: nil, audit: SampleLoaderTests.audit(1)) { sink in
                for index in 0..<5_000 {
                    let start = SampleLoaderTests.morning + Int64(index) * 600
                    try sink.append(SleepSample(source: "Watch", start: start, end: start + 60, stage: .awake))
                }
                throw SampleLoaderTests.Planted()
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM sleep_samples").single().int(0) == 0)
        #expect(try connection.execute("SELECT count(*) FROM imports").single().int(0) == 0)
        // The connection is usable afterwards.
        let outcome = try loader.load(userID: user.id, userTimeZone: nil, audit: SampleLoaderTests.audit(1)) { sink in
            try sink.append(
                SleepSample(
                    source: "Watch", start: SampleLoaderTests.morning - 60, end: SampleLoaderTests.morning,
                    stage: .awake))
            return SampleLoaderTests.audit(1)
        }
        #expect(outcome.inserted == 1)
    }
}

/// A batch is appended without the per-row duplicate probe only when it provably holds
/// only new samples; every other batch is merged. Either way the stored rows and counts
/// are those of `ON CONFLICT DO NOTHING`.
@Suite("SampleLoader append or merge")
struct SampleLoaderAppendTests {
    static let morning = SampleLoaderTests.morning

    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// Stored before the import under test.
        let stored: [SleepSample]
        let imported: [SleepSample]
        let inserted: Int
        /// Earliest wake day among the inserted samples (Berlin), before the margin. A
        /// sample starting 8 h before 2024-03-01T06:00Z ends at 22:30Z, 23:30 in Berlin:
        /// wake day 2024-02-29; one starting 50 h before ends 2024-02-28T04:30Z, 05:30 in Berlin.
        let earliestWakeDay: LocalDate?
    }

    static func sample(_ source: String, hoursBefore start: Int64, minutes: Int64, _ stage: SleepStage = .core)
        -> SleepSample
    {
        let begin = morning - start * 3600
        return SleepSample(source: source, start: begin, end: begin + minutes * 60, stage: stage)
    }

    static let cases: [Case] = [
        Case(
            testDescription: "a first import: all new",
            stored: [],
            imported: [sample("Watch", hoursBefore: 8, minutes: 30), sample("Watch", hoursBefore: 7, minutes: 30)],
            inserted: 2, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
        Case(
            testDescription: "a key twice in the batch: merged, stored once",
            stored: [],
            imported: [sample("Watch", hoursBefore: 8, minutes: 30), sample("Watch", hoursBefore: 8, minutes: 30)],
            inserted: 1, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
        Case(
            testDescription: "another source at the stored times: merged, all new",
            stored: [sample("Watch", hoursBefore: 8, minutes: 30), sample("Watch", hoursBefore: 7, minutes: 30)],
            imported: [sample("iPhone", hoursBefore: 8, minutes: 30), sample("iPhone", hoursBefore: 7, minutes: 30)],
            inserted: 2, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
        Case(
            testDescription: "a stored sample inside the batch's span, keys all different",
            stored: [sample("Watch", hoursBefore: 30, minutes: 30)],
            imported: [sample("Watch", hoursBefore: 50, minutes: 30), sample("Watch", hoursBefore: 8, minutes: 30)],
            inserted: 2, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 28)),
        Case(
            testDescription: "the same stage and instants as stored, another stage: new",
            stored: [sample("Watch", hoursBefore: 8, minutes: 30, .core)],
            imported: [sample("Watch", hoursBefore: 8, minutes: 30, .deep)],
            inserted: 1, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
        Case(
            testDescription: "stored before and after the batch's span: appended",
            stored: [sample("Watch", hoursBefore: 80, minutes: 30), sample("Watch", hoursBefore: -20, minutes: 30)],
            imported: [sample("Watch", hoursBefore: 8, minutes: 30), sample("Watch", hoursBefore: 7, minutes: 30)],
            inserted: 2, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
        Case(
            testDescription: "everything already stored",
            stored: [sample("Watch", hoursBefore: 8, minutes: 30), sample("Watch", hoursBefore: 7, minutes: 30)],
            imported: [sample("Watch", hoursBefore: 7, minutes: 30), sample("Watch", hoursBefore: 8, minutes: 30)],
            inserted: 0, earliestWakeDay: nil),
        Case(
            testDescription: "one stored, one new after it",
            stored: [sample("Watch", hoursBefore: 30, minutes: 30)],
            imported: [sample("Watch", hoursBefore: 30, minutes: 30), sample("Watch", hoursBefore: 8, minutes: 30)],
            inserted: 1, earliestWakeDay: LocalDate(year: 2024, month: 2, day: 29)),
    ]

    @Test(arguments: cases)
    func storesWhatOnConflictDoNothingStores(_ example: Case) throws {
        let (connection, user) = try SampleLoaderTests.setUp()
        defer { connection.close() }
        let loader = SampleLoader(connection: connection)
        if !example.stored.isEmpty {
            let first = try SampleLoaderTests.load(example.stored, for: user, with: loader)
            #expect(first.inserted == example.stored.count)
        }
        let outcome = try SampleLoaderTests.load(example.imported, for: user, with: loader)
        #expect(outcome.inserted == example.inserted)
        #expect(outcome.duplicates == example.imported.count - example.inserted)
        #expect(outcome.dirtyFrom == example.earliestWakeDay?.adding(days: -LookBack.wakeDayMarginDays))
        let keys = Set(
            (example.stored + example.imported).map { "\($0.source)|\($0.start)|\($0.end)|\($0.stage.rawValue)" })
        #expect(try connection.execute("SELECT count(*) FROM sleep_samples").single().int(0) == keys.count)
    }

    /// Two imports of one user at the same time: the second waits for the first's
    /// transaction (the user's import lock), then stores only what the first did not.
    @Test(.timeLimit(.minutes(1))) func importsOfOneUserRunOneAfterTheOther() throws {
        let database = try TestDatabase.migrated()
        let setup = try Connection(conninfo: database.conninfo)
        defer { setup.close() }
        let user = try UserStore(connection: setup).add(handle: "anna", timeZone: "Europe/Berlin")
        let shared = (0..<300).map { Self.sample("Watch", hoursBefore: Int64(600 - $0), minutes: 20) }
        let later = (0..<100).map { Self.sample("Watch", hoursBefore: Int64(300 - $0), minutes: 20) }

        let firstHasRows = DispatchSemaphore(value: 0)
        let finishFirst = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        let conninfo = database.conninfo
        let zone = user.timeZoneIdentifier
        let userID = user.id
        let firstResult = Mutex<Result<ImportOutcome, any Error>?>(nil)
        Thread {
            let result = Result {
                let connection = try Connection(conninfo: conninfo)
                defer { connection.close() }
                return try SampleLoader(connection: connection).load(
                    userID: userID, userTimeZone: zone, audit: SampleLoaderTests.audit(shared.count)
                ) { sink in
                    for sample in shared { try sink.append(sample) }
                    firstHasRows.signal()
                    finishFirst.wait()
                    return SampleLoaderTests.audit(shared.count)
                }
            }
            firstResult.withLock { $0 = result }
            firstDone.signal()
        }.start()
        firstHasRows.wait()

        let second = try Connection(conninfo: database.conninfo)
        defer { second.close() }
        let secondStarted = Date()
        Thread {
            // Let the second import reach the lock before the first one commits.
            usleep(300_000)
            finishFirst.signal()
        }.start()
        let outcome = try SampleLoader(connection: second).load(
            userID: user.id, userTimeZone: zone, audit: SampleLoaderTests.audit(shared.count + later.count)
        ) { sink in
            for sample in shared + later { try sink.append(sample) }
            return SampleLoaderTests.audit(shared.count + later.count)
        }
        firstDone.wait()
        let first = try #require(firstResult.withLock { $0 }).get()
        #expect(Date().timeIntervalSince(secondStarted) >= 0.25, "the second import did not wait")
        #expect(first.inserted == shared.count)
        #expect(outcome.inserted == later.count)
        #expect(outcome.duplicates == shared.count)
        #expect(try setup.execute("SELECT count(*) FROM sleep_samples").single().int(0) == shared.count + later.count)
    }
}
