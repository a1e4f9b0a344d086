import Dispatch
import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Synchronization
import Testing

@testable import LedgerServices

@Suite("Rollup engine")
struct RollupTests {
    static let now = utc(2024, 3, 1, 12)
    static let generator = SleepStreamGenerator(seed: 3)

    static func days(_ first: (Int, Int), _ last: (Int, Int), user: Int = 0) -> [SleepSample] {
        generator.samples(
            forUser: user, from: LocalDate(year: 2024, month: first.0, day: first.1),
            through: LocalDate(year: 2024, month: last.0, day: last.1))
    }

    /// A night of `asleepHours` of unspecified sleep starting at 23:00 UTC the evening
    /// before `wakeDay`, with no zone (the user's zone is used).
    static func plainNight(wakeDay: LocalDate, asleepHours: Int, source: String = "Watch") -> SleepSample {
        let start = Int64(wakeDay.daysSinceEpoch) * 86_400 - 3_600
        return SleepSample(
            source: source, start: start, end: start + Int64(asleepHours) * 3_600, stage: .asleepUnspecified)
    }

    @Test("two full runs give byte-identical rows; a run with nothing to do writes nothing")
    func idempotent() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(Self.days((1, 1), (2, 28)), userID: anna.id, zone: "Europe/Berlin")
        let first = try fixture.runner(RollupSettings(isFullRebuild: true)).run(now: Self.now)
        #expect(first.usersDone == 1 && first.usersRebuiltFully == 1)
        #expect(first.nightsWritten > 40)
        #expect(first.summariesWritten == 6)
        let before = try fixture.snapshot()
        let second = try fixture.runner(RollupSettings(isFullRebuild: true)).run(now: Self.now)
        #expect(second.nightsWritten == first.nightsWritten)
        #expect(try fixture.snapshot() == before)
        let idle = try fixture.runner().run(now: Self.now)
        #expect(idle.usersUpToDate == 1 && idle.usersDone == 0 && idle.nightsWritten == 0)
        #expect(try fixture.snapshot() == before)
    }

    @Test("after a sequence of imports, incremental runs and one --all run leave the same rows")
    func incrementalEqualsFull() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        let ben = try fixture.addUser("ben")
        try fixture.importSamples(Self.days((1, 1), (1, 31)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.importSamples(Self.days((1, 1), (1, 31), user: 1), userID: ben.id, zone: "Europe/Berlin")
        let first = try fixture.runner(RollupSettings(workers: 2)).run(now: Self.now)
        #expect(first.usersDone == 2 && first.usersRebuiltFully == 2)

        try fixture.importSamples(Self.days((2, 1), (2, 20)), userID: anna.id, zone: "Europe/Berlin")
        let second = try fixture.runner().run(now: Self.now)
        #expect(second.usersRebuiltIncrementally == 1)
        #expect(second.usersUpToDate == 1)
        // Fewer samples read than a full rebuild of January and February would need.
        #expect(second.samplesRead < Self.days((1, 1), (2, 20)).count / 2)

        // A late import of an older stretch from another app: the same sleep under a
        // third-party source competes with the watch's nights of January 10-15.
        let late = Self.days((1, 10), (1, 15)).map { sample in
            var copy = sample
            copy.source = "AutoSleep"
            copy.start += 600
            copy.end += 600
            return copy
        }
        try fixture.importSamples(late, userID: anna.id, zone: "Europe/Berlin")
        try fixture.importSamples(Self.days((2, 1), (2, 29), user: 1), userID: ben.id, zone: "Europe/Berlin")
        try fixture.runner(RollupSettings(workers: 2)).run(now: Self.now)
        try fixture.importSamples(Self.days((2, 18), (2, 29)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.runner().run(now: Self.now)
        let incremental = try fixture.snapshot()
        #expect(incremental.contains { $0.contains("AutoSleep") })

        let full = try fixture.runner(RollupSettings(isFullRebuild: true, workers: 2)).run(now: Self.now)
        #expect(full.usersRebuiltFully == 2)
        #expect(try fixture.snapshot() == incremental)
    }

    @Test("a new local day refreshes the summaries from stored nights without reading samples")
    func asOfSlides() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(Self.days((1, 1), (2, 28)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.runner().run(now: Self.now)
        let nightsBefore = try fixture.snapshot().filter { $0.hasPrefix("nights") || $0.hasPrefix("naps") }
        let store = SummaryStore(connection: fixture.connection)
        #expect(try store.summary(userID: anna.id, horizon: .weekly)?.asOf == LocalDate(year: 2024, month: 3, day: 1))

        let sameDay = try fixture.runner().run(now: Self.now + 3_600)
        #expect(sameDay.usersUpToDate == 1 && sameDay.usersDone == 0)

        let nextDay = try fixture.runner().run(now: Self.now + 86_400)
        #expect(nextDay.usersDone == 1)
        #expect(nextDay.samplesRead == 0 && nextDay.nightsWritten == 0)
        #expect(try fixture.snapshot().filter { $0.hasPrefix("nights") || $0.hasPrefix("naps") } == nightsBefore)
        // The personal estimates move to the new as-of day with the summaries.
        #expect(
            try PersonalEstimateStore(connection: fixture.connection).read(userID: anna.id)?.asOf
                == LocalDate(year: 2024, month: 3, day: 2))
        let weekly = try #require(try store.summary(userID: anna.id, horizon: .weekly))
        #expect(weekly.asOf == LocalDate(year: 2024, month: 3, day: 2))
        #expect(weekly.window.first == LocalDate(year: 2024, month: 2, day: 25))
        // Equal to summaries computed from scratch for that day.
        let nights = try NightStore(connection: fixture.connection).nights(userID: anna.id)
        #expect(weekly == SummaryBuilder(nights: nights).summary(horizon: .weekly, asOf: weekly.asOf))
        #expect(try fixture.state(anna.id).localDate("last_as_of") == LocalDate(year: 2024, month: 3, day: 2))
    }

    @Test("changing the target marks the user and the next run recomputes the debt from stored nights")
    func targetChange() throws {
        let fixture = try RollupFixture()
        let carl = try fixture.addUser("carl", zone: "UTC")
        // Seven 6-hour nights waking 2024-03-02 ... 03-08.
        let samples = (2...8).map { Self.plainNight(wakeDay: LocalDate(year: 2024, month: 3, day: $0), asleepHours: 6) }
        try fixture.importSamples(samples, userID: carl.id, zone: "UTC")
        let now = utc(2024, 3, 8, 12)
        try fixture.runner().run(now: now)
        let store = SummaryStore(connection: fixture.connection)
        // 8 h target: 2 h short on each of 7 nights.
        #expect(try store.summary(userID: carl.id, horizon: .weekly)?.debt.debtSeconds == 7 * 7_200)
        #expect(try store.headlines(horizon: .weekly).first?.debtSeconds == 50_400)

        try UserStore(connection: fixture.connection).update(
            handle: "carl", goals: SleepGoals(targetSeconds: 7 * 3_600, minimumSeconds: 6 * 3_600))
        #expect(try fixture.state(carl.id).bool("summaries_stale") == true)
        let report = try fixture.runner().run(now: now)
        #expect(report.usersDone == 1 && report.samplesRead == 0)
        // 7 h target: 1 h short on each of 7 nights.
        #expect(try store.summary(userID: carl.id, horizon: .weekly)?.debt.debtSeconds == 7 * 3_600)
        #expect(try fixture.state(carl.id).bool("summaries_stale") == false)
    }

    @Test("two runners at once over many users: every user done exactly once, no errors")
    func concurrentRunners() throws {
        let fixture = try RollupFixture()
        var ids: [Int64] = []
        for index in 0..<30 {
            let user = try fixture.addUser("user\(index)")
            ids.append(user.id)
            try fixture.importSamples(Self.days((2, 1), (2, 14), user: index), userID: user.id, zone: "Europe/Berlin")
        }
        let reports = Mutex<[RollupReport]>([])
        let errors = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            let runner = fixture.runner(RollupSettings(workers: 2))
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let report = try runner.run(now: Self.now)
                    reports.withLock { $0.append(report) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        let all = reports.withLock { $0 }
        #expect(errors.withLock { $0 } == [])
        #expect(all.count == 2)
        #expect(all.map(\.usersDone).reduce(0, +) == 30)
        #expect(all.map(\.usersFailed).reduce(0, +) == 0)
        for report in all { #expect(report.usersDone + report.usersSkipped + report.usersUpToDate == 30) }
        for id in ids { #expect(try fixture.count("summaries", userID: id) == 6) }
        let together = try fixture.snapshot()
        try fixture.runner(RollupSettings(isFullRebuild: true, workers: 2)).run(now: Self.now)
        #expect(try fixture.snapshot() == together)
    }

    @Test("a user held by another runner is skipped, and a run where every user was held is busy")
    func heldUserIsSkipped() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(Self.days((2, 1), (2, 7)), userID: anna.id, zone: "Europe/Berlin")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let slow = fixture.runner(beforeCommit: { _ in
            holding.signal()
            release.wait()
        })
        let slowReport = Mutex<RollupReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            slowReport.withLock { $0 = try? slow.run(now: Self.now) }
            done.signal()
        }.start()
        holding.wait()
        let second = try fixture.runner().run(now: Self.now)
        release.signal()
        done.wait()
        #expect(second.usersSkipped == 1 && second.usersDone == 0)
        #expect(second.isBusy)
        #expect(slowReport.withLock { $0?.usersDone } == 1)
    }

    @Test("a runner that dies before committing leaves the previous results and the marks; the next run finishes")
    func abortedRunner() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        let ben = try fixture.addUser("ben")
        try fixture.importSamples(Self.days((1, 1), (1, 31)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.importSamples(Self.days((1, 1), (1, 31), user: 1), userID: ben.id, zone: "Europe/Berlin")
        try fixture.runner().run(now: Self.now)
        let before = try fixture.snapshot()

        try fixture.importSamples(Self.days((2, 1), (2, 28)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.importSamples(Self.days((2, 1), (2, 28), user: 1), userID: ben.id, zone: "Europe/Berlin")
        let annaID = anna.id
        struct Crash: Error, CustomStringConvertible { var description: String { "simulated crash" } }
        let failing = try fixture.runner(beforeCommit: { id in if id == annaID { throw Crash() } }).run(now: Self.now)
        #expect(failing.usersFailed == 1 && failing.usersDone == 1)
        #expect(failing.failures == [RollupFailure(userID: anna.id, handle: "anna", message: "simulated crash")])
        // Anna's rows are the previous ones; ben (not failing) went on.
        #expect(
            try fixture.snapshot().filter { $0.contains("(\(anna.id),") }
                == before.filter { $0.contains("(\(anna.id),") })
        let state = try fixture.state(anna.id)
        #expect(try state.date("dirty_from") != nil)
        #expect(try state.string("last_error") == "simulated crash")
        #expect(try state.int("failure_count") == 1)

        let retry = try fixture.runner().run(now: Self.now)
        #expect(retry.usersDone == 1 && retry.usersUpToDate == 1)
        #expect(try fixture.state(anna.id).isNull("last_error"))
        let finished = try fixture.snapshot()
        try fixture.runner(RollupSettings(isFullRebuild: true)).run(now: Self.now)
        #expect(try fixture.snapshot() == finished)
    }

    @Test("users with no usable samples, only in-bed records, or only naps get no nights, no debt and score 0")
    func usersWithoutNights() throws {
        let fixture = try RollupFixture()
        let empty = try fixture.addUser("empty", zone: "UTC")
        let inBed = try fixture.addUser("inbed", zone: "UTC")
        let napper = try fixture.addUser("napper", zone: "UTC")
        let start = utc(2024, 2, 27, 22)
        try fixture.importSamples(
            [
                SleepSample(source: "iPhone", start: start, end: start + 8 * 3_600, stage: .inBed),
                SleepSample(source: "iPhone", start: start + 3_600, end: start + 3_700, stage: .awake),
            ], userID: inBed.id, zone: "UTC")
        // Three one-hour afternoon naps.
        let naps = (26...28).map { day in
            SleepSample(
                source: "Watch", start: utc(2024, 2, day, 14), end: utc(2024, 2, day, 15), stage: .asleepUnspecified)
        }
        try fixture.importSamples(naps, userID: napper.id, zone: "UTC")
        let report = try fixture.runner().run(now: utc(2024, 2, 29, 12))
        #expect(report.usersDone == 3 && report.usersFailed == 0)
        #expect(report.nightsWritten == 0 && report.napsWritten == 3)
        #expect(try fixture.count("naps", userID: napper.id) == 3)
        for user in [empty, inBed, napper] {
            #expect(try fixture.count("nights", userID: user.id) == 0)
            for horizon in Horizon.allCases {
                let summary = try #require(
                    try SummaryStore(connection: fixture.connection).summary(userID: user.id, horizon: horizon))
                #expect(summary.debt.debtSeconds == 0)
                #expect(summary.debt.trackedNights == 0)
                #expect(summary.score.overall == 0)
                #expect(summary.lastNight == nil)
            }
        }
    }

    @Test("users far from UTC get their own local today as the as-of day")
    func farZones() throws {
        let fixture = try RollupFixture()
        let kiri = try fixture.addUser("kiri", zone: "Pacific/Kiritimati")  // UTC+14
        let pago = try fixture.addUser("pago", zone: "Pacific/Pago_Pago")  // UTC-11
        // Kiritimati: asleep 01:00-08:00 local on 2024-06-01 (2024-05-31 11:00-18:00 UTC).
        try fixture.importSamples(
            [SleepSample(source: "Watch", start: utc(2024, 5, 31, 11), end: utc(2024, 5, 31, 18), stage: .core)],
            userID: kiri.id, zone: "Pacific/Kiritimati")
        // Pago Pago: asleep 23:00-06:00 local, waking 2024-06-01 (2024-06-01 10:00-17:00 UTC).
        try fixture.importSamples(
            [SleepSample(source: "Watch", start: utc(2024, 6, 1, 10), end: utc(2024, 6, 1, 17), stage: .core)],
            userID: pago.id, zone: "Pacific/Pago_Pago")
        // 2024-06-01 12:00 UTC: 2024-06-02 02:00 in Kiritimati, 2024-06-01 01:00 in Pago Pago.
        try fixture.runner().run(now: utc(2024, 6, 1, 12))
        let store = SummaryStore(connection: fixture.connection)
        let kiriDaily = try #require(try store.summary(userID: kiri.id, horizon: .daily))
        #expect(kiriDaily.asOf == LocalDate(year: 2024, month: 6, day: 2))
        #expect(kiriDaily.lastNight?.wakeDay == LocalDate(year: 2024, month: 6, day: 1))
        #expect(kiriDaily.lastNight?.asleepSeconds == 25_200)
        let pagoDaily = try #require(try store.summary(userID: pago.id, horizon: .daily))
        #expect(pagoDaily.asOf == LocalDate(year: 2024, month: 6, day: 1))
        // Pago Pago's night wakes later on its own 2024-06-01, after the run's instant:
        // it is stored, and the summary counts it (wake day within the as-of day).
        #expect(try fixture.count("nights", userID: pago.id) == 1)
        // An hour later it is still the same local day in both zones: nothing to do.
        #expect(try fixture.runner().run(now: utc(2024, 6, 1, 13)).usersUpToDate == 2)
        // At 10:00 UTC the next day Kiritimati is already on 06-03, Pago Pago on 06-01 23:00.
        let later = try fixture.runner().run(now: utc(2024, 6, 2, 10))
        #expect(later.usersDone == 1 && later.usersUpToDate == 1)
    }

    @Test("--user limits the run; an unknown handle is notFound; a raised stop signal starts no user")
    func selectionAndStop() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        let ben = try fixture.addUser("ben")
        let only = try fixture.runner(RollupSettings(handle: "ANNA")).run(now: Self.now)
        #expect(only.usersSelected == 1 && only.usersDone == 1)
        #expect(try fixture.count("summaries", userID: anna.id) == 6)
        #expect(try fixture.count("summaries", userID: ben.id) == 0)
        let error = #expect(throws: ServiceError.self) {
            try fixture.runner(RollupSettings(handle: "nobody")).run(now: Self.now)
        }
        #expect(error?.kind == .notFound)
        let stop = RollupStopSignal()
        stop.raise()
        let stopped = try fixture.runner().run(now: Self.now, stop: stop)
        #expect(stopped.wasStopped && stopped.usersNotStarted == 1 && stopped.usersDone == 0)
        #expect(try fixture.count("summaries", userID: ben.id) == 0)
    }
}
