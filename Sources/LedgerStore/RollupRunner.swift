import Dispatch
import Foundation
import SleepCore
import Synchronization

/// The rollup engine: turns each user's stored samples into nights, naps and the six
/// horizon summaries (`sleepledger rollup`, docs/operations.md "Rollup").
///
/// Work list: every selected user whose samples changed (`rollup_state.dirty_from`), whose
/// goals or zone changed (`summaries_stale`, or a zone unlike `nights_time_zone`), whose
/// as-of day differs from the stored one (`last_as_of`), or who was never rolled up; with
/// ``RollupSettings/isFullRebuild`` every selected user.
///
/// Each user is one transaction on one worker's connection: claim the user's
/// `rollup_state` row with `FOR UPDATE SKIP LOCKED` (a user another runner holds is
/// skipped, never waited for, so two runners never deadlock or do a user twice), check
/// again what it needs, rebuild nights (all of them, or from `dirty_from` minus
/// ``RollupSettings/rebuildMarginDays`` on), compute the summaries from the stored nights,
/// replace the user's rows, clear its flags, commit. A reader sees the previous results or
/// the new ones, never a mix; a killed runner's transaction is rolled back by the server,
/// leaving the previous results and the flags for the next run.
///
/// The clock is injected (`now`), never read.
public struct RollupRunner: Sendable {
    /// What to do.
    public let settings: RollupSettings
    /// Opens a new connection; called once for the work list and once per worker.
    public let connect: @Sendable () throws -> Connection
    /// Called with the user id just before a user's transaction commits (tests use it to
    /// fail or stall a user).
    let beforeCommit: (@Sendable (Int64) throws -> Void)?

    /// Creates a runner.
    public init(settings: RollupSettings, connect: @escaping @Sendable () throws -> Connection) {
        self.init(settings: settings, connect: connect, beforeCommit: nil)
    }

    init(
        settings: RollupSettings, connect: @escaping @Sendable () throws -> Connection,
        beforeCommit: (@Sendable (Int64) throws -> Void)?
    ) {
        self.settings = settings
        self.connect = connect
        self.beforeCommit = beforeCommit
    }

    /// One selected user and what it looked like when the work list was made.
    struct Candidate: Sendable {
        let userID: Int64
        let handle: String
        let needsWork: Bool
    }

    /// The state of a user read under its claim.
    struct ClaimedState {
        let timeZone: String
        let goals: SleepGoals
        let dirtyFrom: LocalDate?
        let summariesStale: Bool
        let lastAsOf: LocalDate?
        let nightsTimeZone: String?
    }

    /// The shared queue position and running report of one run's workers.
    final class Progress: Sendable {
        let next = Mutex(0)
        let report: Mutex<RollupReport>
        init(_ report: RollupReport) { self.report = Mutex(report) }
    }

    /// The outcome of one user.
    enum Outcome {
        case done(fully: Bool, incrementally: Bool, nights: Int, naps: Int, summaries: Int, samples: Int)
        case upToDate
        case skipped
    }

    /// Runs the rollup with `now` (epoch seconds) as the current instant and returns what
    /// it did. Throws only when the work list cannot be made (no database, unknown
    /// `--user` handle: `notFound`); a failing user is recorded in the report instead.
    @discardableResult
    public func run(now: Int64, stop: RollupStopSignal = RollupStopSignal()) throws -> RollupReport {
        let candidates = try workList(now: now)
        var report = RollupReport()
        report.usersSelected = candidates.count
        report.usersUpToDate = candidates.count { !$0.needsWork }
        let pending = candidates.filter(\.needsWork)
        guard !pending.isEmpty else { return report }

        let progress = Progress(report)
        let workerCount = max(1, min(settings.workers, pending.count))
        let finished = DispatchGroup()
        for _ in 0..<workerCount {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                work(pending, progress: progress, now: now, stop: stop)
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        finished.wait()
        let taken = progress.next.withLock { $0 }
        return progress.report.withLock { report in
            report.usersNotStarted += max(0, pending.count - taken)
            report.wasStopped = stop.isRaised
            report.failures.sort { ($0.handle.lowercased(), $0.userID) < ($1.handle.lowercased(), $1.userID) }
            return report
        }
    }

    /// The selected users, each marked with whether it needs work.
    func workList(now: Int64) throws -> [Candidate] {
        let connection = try connect()
        defer { connection.close() }
        try connection.execute(
            // Only rows that are missing: checking an existing key would wait for a runner
            // that holds that row.
            """
            INSERT INTO rollup_state (user_id)
            SELECT id FROM users u WHERE NOT EXISTS (SELECT FROM rollup_state r WHERE r.user_id = u.id)
            ON CONFLICT (user_id) DO NOTHING
            """,
            name: "rollup.ensureState")
        let rows = try connection.execute(
            """
            SELECT u.id, u.handle, u.time_zone, r.dirty_from, r.summaries_stale, r.last_as_of, r.nights_time_zone
            FROM users u JOIN rollup_state r ON r.user_id = u.id
            WHERE $1::text IS NULL OR lower(u.handle) = lower($1)
            ORDER BY u.id
            """, [settings.handle.map { .text($0) }], name: "rollup.workList"
        ).rows
        if let handle = settings.handle, rows.isEmpty {
            throw StoreError(.notFound, "no user with handle \(handle)", statement: "rollup.workList")
        }
        return try rows.map { row in
            guard let id = try row.int64(0), let handle = try row.string(1), let zone = try row.string(2),
                let stale = try row.bool(4)
            else { throw StoreError(.decodingFailed, "a users row has a NULL column", statement: "rollup.workList") }
            let state = ClaimedState(
                timeZone: zone, goals: SleepGoals(), dirtyFrom: try row.date(3), summariesStale: stale,
                lastAsOf: try row.date(5), nightsTimeZone: try row.string(6))
            return Candidate(userID: id, handle: handle, needsWork: needsWork(state, asOf: asOf(for: zone, now: now)))
        }
    }

    /// The as-of day of a user: the settings' day, else the date of `now` in the user's
    /// zone (UTC when the zone is unknown to Foundation).
    func asOf(for zone: String, now: Int64) -> LocalDate {
        if let day = settings.asOf { return day }
        let timeZone = LocalTime.timeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt
        return LocalTime.localDate(of: now, in: timeZone)
    }

    func needsWork(_ state: ClaimedState, asOf: LocalDate) -> Bool {
        settings.isFullRebuild || state.dirtyFrom != nil || state.summariesStale || state.lastAsOf != asOf
            || state.nightsTimeZone != state.timeZone
    }

    // MARK: Workers

    private func work(
        _ pending: [Candidate], progress: Progress, now: Int64, stop: RollupStopSignal
    ) {
        var connection: Connection?
        defer { connection?.close() }
        while !stop.isRaised {
            let index: Int? = progress.next.withLock { value in
                guard value < pending.count else { return nil }
                value += 1
                return value - 1
            }
            guard let index else { return }
            let candidate = pending[index]
            do {
                if connection == nil || connection?.isOpen != true {
                    connection?.close()
                    let fresh = try connect()
                    // The results are derived data and the user's marks are cleared in the
                    // same transaction: if a server crash loses a commit that was not
                    // flushed yet, the marks come back with it and the next run redoes
                    // the user. So the workers' commits do not wait for a flush.
                    try fresh.execute("SET synchronous_commit = off", name: "rollup.asyncCommit")
                    connection = fresh
                }
                guard let live = connection else { continue }
                let outcome = try rollUp(candidate, on: live, now: now)
                progress.report.withLock { report in
                    switch outcome {
                    case .skipped: report.usersSkipped += 1
                    case .upToDate: report.usersUpToDate += 1
                    case .done(let fully, let incrementally, let nights, let naps, let summaries, let samples):
                        report.usersDone += 1
                        if fully { report.usersRebuiltFully += 1 }
                        if incrementally { report.usersRebuiltIncrementally += 1 }
                        report.nightsWritten += nights
                        report.napsWritten += naps
                        report.summariesWritten += summaries
                        report.samplesRead += samples
                    }
                }
            } catch {
                let message = (error as? StoreError)?.description ?? "\(error)"
                if let connection, connection.isOpen {
                    recordFailure(candidate.userID, message: message, on: connection, now: now)
                }
                progress.report.withLock { report in
                    report.usersFailed += 1
                    report.failures.append(
                        RollupFailure(userID: candidate.userID, handle: candidate.handle, message: message))
                }
            }
        }
    }

    private func recordFailure(_ userID: Int64, message: String, on connection: Connection, now: Int64) {
        _ = try? connection.execute(
            """
            UPDATE rollup_state SET last_error = $2, failed_at = $3, failure_count = failure_count + 1
            WHERE user_id = (SELECT user_id FROM rollup_state WHERE user_id = $1 FOR UPDATE SKIP LOCKED)
            """, [.int64(userID), .text(String(message.prefix(2000))), .timestamp(epochSeconds: now)],
            name: "rollup.recordFailure")
    }

    // MARK: One user

    /// Rolls up one user in one transaction on `connection`.
    func rollUp(_ candidate: Candidate, on connection: Connection, now: Int64) throws -> Outcome {
        try connection.transaction { connection in
            guard let state = try claim(candidate.userID, on: connection) else { return .skipped }
            let asOf = asOf(for: state.timeZone, now: now)
            guard needsWork(state, asOf: asOf) else { return .upToDate }

            let isFull =
                settings.isFullRebuild || state.lastAsOf == nil || state.nightsTimeZone != state.timeZone
            let rebuildFrom: LocalDate? =
                isFull ? nil : state.dirtyFrom.map { $0.adding(days: -RollupSettings.rebuildMarginDays) }
            let firstNeeded = Horizon.tenYears.window(asOf: asOf).first
            let nightStore = NightStore(connection: connection)

            var nights: [Night]
            var written = (nights: 0, naps: 0)
            var samplesRead = 0
            if isFull || rebuildFrom != nil {
                let cutoff = rebuildFrom.map {
                    Int64($0.daysSinceEpoch) * LocalTime.secondsPerDay - RollupSettings.sampleLookbackSeconds
                }
                let samples = try readSamples(candidate.userID, endingAtOrAfter: cutoff, on: connection)
                samplesRead = samples.count
                let built = NightBuilder(rules: settings.nightRules).build(
                    from: samples, userTimeZoneIdentifier: state.timeZone)
                written = try nightStore.write(
                    userID: candidate.userID, from: rebuildFrom, nights: built.nights, naps: built.naps)
                let fresh = built.nights.filter { night in
                    night.wakeDay >= firstNeeded && rebuildFrom.map { night.wakeDay >= $0 } ?? true
                }
                if let rebuildFrom, firstNeeded < rebuildFrom {
                    nights =
                        try nightStore.nightsForSummaries(
                            userID: candidate.userID, from: firstNeeded, through: rebuildFrom.adding(days: -1),
                            segmentsFrom: asOf.adding(days: -1))
                        + fresh
                } else {
                    nights = fresh
                }
            } else {
                nights = try nightStore.nightsForSummaries(
                    userID: candidate.userID, from: firstNeeded, segmentsFrom: asOf.adding(days: -1))
            }

            let summaries = SummaryBuilder(nights: nights, goals: state.goals, rules: settings.metricRules)
                .summaries(asOf: asOf)
            let summaryRows = try SummaryStore(connection: connection).write(
                userID: candidate.userID, summaries: summaries, computedAt: now)
            try connection.executePrepared(
                """
                UPDATE rollup_state SET dirty_from = NULL, summaries_stale = false, last_as_of = $2,
                    last_rollup_at = $3, updated_at = $3, nights_time_zone = $4, last_error = NULL,
                    failed_at = NULL, failure_count = 0
                WHERE user_id = $1
                """,
                [.int64(candidate.userID), .date(asOf), .timestamp(epochSeconds: now), .text(state.timeZone)],
                name: "rollup.clearState")
            try beforeCommit?(candidate.userID)
            return .done(
                fully: isFull, incrementally: !isFull && rebuildFrom != nil, nights: written.nights,
                naps: written.naps, summaries: summaryRows, samples: samplesRead)
        }
    }

    /// Locks the user's rollup_state row, or returns `nil` when another transaction holds
    /// it (or the user is gone).
    func claim(_ userID: Int64, on connection: Connection) throws -> ClaimedState? {
        guard
            let row = try connection.executePrepared(
                """
                SELECT u.time_zone, u.target_seconds, u.minimum_seconds, r.dirty_from, r.summaries_stale,
                       r.last_as_of, r.nights_time_zone
                FROM rollup_state r JOIN users u ON u.id = r.user_id
                WHERE r.user_id = $1
                FOR UPDATE OF r SKIP LOCKED
                """, [.int64(userID)], name: "rollup.claim"
            ).first
        else { return nil }
        guard let zone = try row.string(0), let target = try row.int64(1), let minimum = try row.int64(2),
            let stale = try row.bool(4)
        else { throw StoreError(.decodingFailed, "a rollup_state row has a NULL column", statement: "rollup.claim") }
        return ClaimedState(
            timeZone: zone, goals: SleepGoals(targetSeconds: target, minimumSeconds: minimum),
            dirtyFrom: try row.date(3), summariesStale: stale, lastAsOf: try row.date(5),
            nightsTimeZone: try row.string(6))
    }

    // The sample read in two prepared forms, one per plan: all of the user's samples, or
    // a range of the primary key (user_id, end_at, ...) from the cutoff on.
    static let sampleColumnsSQL = """
        SELECT source, date_part('epoch', start_at)::bigint, date_part('epoch', end_at)::bigint, stage,
               time_zone, printed_utc_offset
        FROM sleep_samples
        """
    static let allSamplesSQL = sampleColumnsSQL + " WHERE user_id = $1"
    static let samplesFromCutoffSQL = sampleColumnsSQL + " WHERE user_id = $1 AND end_at >= $2"

    /// The user's samples, those ending at or after `cutoff` when given.
    func readSamples(_ userID: Int64, endingAtOrAfter cutoff: Int64?, on connection: Connection) throws
        -> [SleepSample]
    {
        let rows: [Row]
        if let cutoff {
            rows = try connection.executePrepared(
                Self.samplesFromCutoffSQL, [.int64(userID), .timestamp(epochSeconds: cutoff)],
                name: "rollup.readSamples"
            ).rows
        } else {
            rows = try connection.executePrepared(Self.allSamplesSQL, [.int64(userID)], name: "rollup.readSamples")
                .rows
        }
        var samples: [SleepSample] = []
        samples.reserveCapacity(rows.count)
        for row in rows {
            guard let source = try row.string(0), let start = try row.int64(1), let end = try row.int64(2),
                let stage = try row.string(3).flatMap(SleepStage.init(rawValue:))
            else {
                throw StoreError(.decodingFailed, "a sleep_samples row is incomplete", statement: "rollup.readSamples")
            }
            samples.append(
                SleepSample(
                    source: source, start: start, end: end, stage: stage, timeZoneIdentifier: try row.string(4),
                    printedUTCOffset: try row.int64(5).map { Int32(clamping: $0) }))
        }
        return samples
    }
}
