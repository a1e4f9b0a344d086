import Dispatch
import Foundation
import LedgerStore
import PostgresClient
import SleepCore
import Synchronization

/// The rollup: turns each user's stored samples into nights, naps and the six
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
/// again what it needs, rebuild nights (all of them, or from the day
/// `LookBack.firstRebuiltWakeDay(changedFrom:)` names for `dirty_from`, reading the samples
/// `LookBack.sampleSpanStart(rebuildingFrom:)` names), compute the summaries through
/// ``SummaryService`` (the nights just built, the others read back), replace the user's
/// rows, clear its flags, commit. A reader sees the previous results or
/// the new ones, never a mix; a killed runner's transaction is rolled back by the server,
/// leaving the previous results and the flags for the next run.
///
/// The clock is injected (`now`), never read.
public struct RollupService: Sendable {
    /// What to do.
    public let settings: RollupSettings
    /// Where the ledger is; the run opens one connection for the work list and one per worker.
    public let database: LedgerDatabase
    /// Called with the user id just before a user's transaction commits (tests use it to
    /// fail or stall a user).
    let beforeCommit: (@Sendable (Int64) throws -> Void)?

    /// Creates the service for one kind of run.
    public init(database: LedgerDatabase, settings: RollupSettings) {
        self.init(database: database, settings: settings, beforeCommit: nil)
    }

    init(database: LedgerDatabase, settings: RollupSettings, beforeCommit: (@Sendable (Int64) throws -> Void)?) {
        self.database = database
        self.settings = settings
        self.beforeCommit = beforeCommit
    }

    /// One selected user and what it looked like when the work list was made.
    struct Candidate: Sendable {
        let userID: Int64
        let handle: String
        let needsWork: Bool
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
    /// it did. Throws only when the settings are refused (an as-of day outside
    /// `LocalDate.supportedRange`: ``ServiceError/Kind/invalidInput``) or the work list
    /// cannot be made (no database, an unknown handle: ``ServiceError/Kind/notFound``); a
    /// failing user is recorded in the report instead.
    @discardableResult
    public func run(now: Int64, stop: RollupStopSignal = RollupStopSignal()) throws(ServiceError) -> RollupReport {
        try SupportedDates.check(settings.asOf, "the as-of day")
        let candidates = try ServiceError.wrapping { try workList(now: now) }
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

    /// The selected users, each marked with whether it needs work. Opens a session
    /// first, so the embedded cluster runs and the schema is current.
    func workList(now: Int64) throws -> [Candidate] {
        let session = try database.open(access: .writes)
        defer { session.close() }
        let store = RollupStateStore(connection: session.connection)
        try store.addMissingRows()
        let states = try store.states(handle: settings.handle, userID: settings.userID)
        if let handle = settings.handle, states.isEmpty { throw UserService.unknown(handle) }
        return states.map { state in
            Candidate(
                userID: state.userID, handle: state.handle,
                needsWork: needsWork(state, asOf: asOf(for: state.timeZone, now: now)))
        }
    }

    /// The as-of day of a user: the settings' day, else the date of `now` in the user's
    /// zone (UTC when the zone is unknown to Foundation).
    func asOf(for zone: String, now: Int64) -> LocalDate {
        if let day = settings.asOf { return day }
        let timeZone = LocalTime.timeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt
        return LocalTime.localDate(of: now, in: timeZone)
    }

    func needsWork(_ state: RollupStateStore.UserState, asOf: LocalDate) -> Bool {
        settings.isFullRebuild || state.dirtyFrom != nil || state.summariesStale || state.lastAsOf != asOf
            || state.nightsTimeZone != state.timeZone || state.rulesVersion != PersonalSleepRules.version
    }

    // MARK: Workers

    private func work(
        _ pending: [Candidate], progress: Progress, now: Int64, stop: RollupStopSignal
    ) {
        var connection: Connection?
        var writesThroughStaging = false
        defer { connection?.close() }
        while !stop.isRaised {
            let index: Int? = progress.next.withLock { value in
                guard value < pending.count else { return nil }
                value += 1
                return value - 1
            }
            guard let index else { return }
            let candidate = pending[index]
            var attempts = 0
            while true {
                attempts += 1
                do {
                    try rollUp(
                        candidate, connection: &connection, writesThroughStaging: &writesThroughStaging,
                        progress: progress, now: now)
                } catch  where attempts == 1 && (SessionPool.isLost(error) || connection?.isOpen == false) {
                    // The database was lost (a failover): connect again and do this user once more.
                    connection?.close()
                    connection = nil
                    Self.pauseBeforeReconnecting()
                    continue
                } catch {
                    recordFailure(error, of: candidate, on: connection, progress: progress, now: now)
                }
                break
            }
        }
    }

    /// How long a worker waits before connecting again after losing the database: time
    /// for a switchover (about 2 s) to finish.
    static let reconnectPauseSeconds = 2.0

    private static func pauseBeforeReconnecting() {
        usleep(UInt32(reconnectPauseSeconds * 1_000_000))
    }

    /// Rolls `candidate` up on `connection` (connected first when there is none or it
    /// broke) and adds the outcome to `progress`.
    private func rollUp(
        _ candidate: Candidate, connection: inout Connection?, writesThroughStaging: inout Bool,
        progress: Progress, now: Int64
    ) throws {
        if connection == nil || connection?.isOpen != true {
            connection?.close()
            let fresh = try database.connect()
            // The results are derived data and the user's marks are cleared in the
            // same transaction: if a server crash loses a commit that was not
            // flushed yet, the marks come back with it and the next run redoes
            // the user. So the workers' commits do not wait for a flush.
            try fresh.execute("SET synchronous_commit = off", name: "rollup.asyncCommit")
            writesThroughStaging = try NightStore.isHeldToRowSecurity(fresh)
            connection = fresh
        }
        guard let live = connection else { return }
        let outcome = try rollUp(candidate, on: live, now: now, writesThroughStaging: writesThroughStaging)
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
    }

    /// Records that `candidate` failed with `error`, in its rollup state (while the
    /// connection is open) and in the run's report.
    private func recordFailure(
        _ error: any Error, of candidate: Candidate, on connection: Connection?, progress: Progress, now: Int64
    ) {
        // Every layer's errors describe themselves log-safely.
        let message = "\(error)"
        if let connection, connection.isOpen {
            RollupStateStore(connection: connection).recordFailure(
                userID: candidate.userID, message: message, now: now)
        }
        progress.report.withLock { report in
            report.usersFailed += 1
            report.failures.append(
                RollupFailure(userID: candidate.userID, handle: candidate.handle, message: message))
        }
    }

    // MARK: One user

    /// Rolls up user `userID` at `now` on `session`, in one transaction as the user (on
    /// the server's role, row-level security holds): what the import queue runs right after
    /// a job, so that the person's summary is fresh seconds after their upload, on the
    /// worker's own session. Like the workers' commits, it does not wait for a flush (a
    /// commit lost to a crash leaves the user marked, and the next run redoes them).
    /// Returns `false` when another runner holds the user (that run rolls them up). A
    /// failure is recorded in the user's rollup state (the nightly run retries) and thrown.
    @discardableResult
    public func rollUp(userID: Int64, on session: LedgerSession, now: Int64) throws(ServiceError) -> Bool {
        let candidate = Candidate(userID: userID, handle: "", needsWork: true)
        let connection = session.connection
        do {
            let writesThroughStaging = try NightStore.isHeldToRowSecurity(connection)
            let outcome = try session.asUser(userID) {
                try connection.execute("SET LOCAL synchronous_commit = off", name: "rollup.asyncCommitLocal")
                return try rollUp(candidate, on: connection, now: now, writesThroughStaging: writesThroughStaging)
            }
            if case .skipped = outcome { return false }
            return true
        } catch {
            if connection.isOpen, !connection.isInTransaction {
                _ = try? session.asUser(userID) {
                    RollupStateStore(connection: connection).recordFailure(
                        userID: userID, message: "\(error)", now: now)
                }
            }
            throw ServiceError(error)
        }
    }

    /// Rolls up one user in one transaction on `connection`; `writesThroughStaging` when the
    /// connection's role is held to row-level security
    /// (``LedgerStore/NightStore/isHeldToRowSecurity(_:)``).
    func rollUp(_ candidate: Candidate, on connection: Connection, now: Int64, writesThroughStaging: Bool) throws
        -> Outcome
    {
        try connection.transaction { connection in
            let states = RollupStateStore(connection: connection)
            guard let state = try states.claim(userID: candidate.userID) else { return .skipped }
            let asOf = asOf(for: state.timeZone, now: now)
            guard needsWork(state, asOf: asOf) else { return .upToDate }

            let isFull =
                settings.isFullRebuild || state.lastAsOf == nil || state.nightsTimeZone != state.timeZone
                || state.rulesVersion != PersonalSleepRules.version
            let rebuildFrom: LocalDate? =
                isFull ? nil : state.dirtyFrom.map { LookBack.firstRebuiltWakeDay(changedFrom: $0) }
            let nightStore = NightStore(connection: connection, writesThroughStaging: writesThroughStaging)

            var rebuilt: (from: LocalDate?, nights: [Night])?
            var written = (nights: 0, naps: 0)
            var samplesRead = 0
            if isFull || rebuildFrom != nil {
                let samples = try SampleStore(connection: connection).samples(
                    userID: candidate.userID,
                    endingAtOrAfter: rebuildFrom.map { LookBack.sampleSpanStart(rebuildingFrom: $0) })
                samplesRead = samples.count
                let built = NightBuilder(rules: settings.nightRules).build(
                    from: samples, userTimeZoneIdentifier: state.timeZone)
                let confidences = NightConfidence.assess(nights: built.nights, samples: samples)
                written = try nightStore.write(
                    userID: candidate.userID, from: rebuildFrom, nights: built.nights, naps: built.naps,
                    confidences: confidences)
                rebuilt = (rebuildFrom, built.nights)
            }
            let personalRange = LookBack.personalNights(asOf: asOf)
            let (summaries, nights) = try SummaryService.summariesAndNights(
                userID: candidate.userID, goals: state.goals, asOf: asOf, horizons: Horizon.allCases,
                rules: settings.metricRules, nights: nightStore, rebuilt: rebuilt, readingFrom: personalRange.first)
            let summaryRows = try SummaryStore(connection: connection).write(
                userID: candidate.userID, summaries: summaries, computedAt: now)
            let recent = nights.filter { personalRange.contains($0.wakeDay) }
            try states.markRolledUp(
                userID: candidate.userID, asOf: asOf, now: now, timeZone: state.timeZone,
                need: SleepNeedEstimate.estimate(nights: recent, asOf: asOf, workDays: state.goals.workDays),
                chronotype: Chronotype.estimate(nights: recent, asOf: asOf, workDays: state.goals.workDays))
            try beforeCommit?(candidate.userID)
            return .done(
                fully: isFull, incrementally: !isFull && rebuildFrom != nil, nights: written.nights,
                naps: written.naps, summaries: summaryRows, samples: samplesRead)
        }
    }
}
