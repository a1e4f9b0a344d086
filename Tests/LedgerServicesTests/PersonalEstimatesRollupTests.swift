import Foundation
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Testing

@testable import LedgerServices

/// The rollup's storage of issue 24: each night's confidence, the need estimate and
/// chronotype, and the rules version that forces a full rebuild.
@Suite("Rollup: personal estimates")
struct PersonalEstimatesRollupTests {
    static let now = utc(2024, 3, 1, 12)

    @Test("a full run stores every night's confidence and the estimates SleepCore computes from the stored nights")
    func stored() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        let samples = RollupTests.days((1, 1), (2, 28))
        try fixture.importSamples(samples, userID: anna.id, zone: "Europe/Berlin")
        try fixture.runner(RollupSettings(isFullRebuild: true)).run(now: Self.now)

        let store = NightStore(connection: fixture.connection)
        let nights = try store.nights(userID: anna.id)
        let confidences = try store.confidences(userID: anna.id)
        #expect(!nights.isEmpty)
        #expect(Set(confidences.keys) == Set(nights.map(\.wakeDay)))
        let expected = NightConfidence.assess(nights: nights, samples: samples)
        for (night, confidence) in zip(nights, expected) { #expect(confidences[night.wakeDay] == confidence) }

        let stored = try #require(try PersonalEstimateStore(connection: fixture.connection).read(userID: anna.id))
        let asOf = try #require(try fixture.state(anna.id).localDate(2))
        #expect(stored.asOf == asOf)
        #expect(stored.rulesVersion == PersonalSleepRules.version)
        #expect(stored.need == SleepNeedEstimate.estimate(nights: nights, asOf: asOf))
        #expect(stored.chronotype == Chronotype.estimate(nights: nights, asOf: asOf))
        #expect(
            try fixture.connection.execute(
                "SELECT rules_version FROM rollup_state WHERE user_id = $1", [.int64(anna.id)]
            ).single().int(0) == PersonalSleepRules.version)
    }

    @Test("a person last rolled up with older rules is rebuilt fully by the next ordinary run, to the same rows")
    func olderRulesRebuild() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(RollupTests.days((1, 1), (2, 28)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.runner().run(now: Self.now)
        let before = try fixture.snapshot(includingComputedAt: false)

        // As a build before issue 24 left it: no confidence, no estimates, version 0.
        try fixture.connection.execute(
            """
            UPDATE nights SET confidence = NULL, confidence_coverage = NULL, confidence_kind = NULL,
                confidence_agreement = NULL, confidence_truncated = NULL, confidence_plausibility = NULL,
                confidence_fragmentation = NULL
            """)
        try fixture.connection.execute("DELETE FROM personal_estimates")
        try fixture.connection.execute("UPDATE rollup_state SET rules_version = 0")

        let report = try fixture.runner().run(now: Self.now)
        #expect(report.usersDone == 1 && report.usersRebuiltFully == 1)
        #expect(try fixture.snapshot(includingComputedAt: false) == before)
        let idle = try fixture.runner().run(now: Self.now)
        #expect(idle.usersUpToDate == 1)
    }

    @Test("changing the work days or the target mode marks the summaries stale; the next run uses them")
    func settings() throws {
        let fixture = try RollupFixture()
        let anna = try fixture.addUser("anna")
        try fixture.importSamples(RollupTests.days((1, 1), (2, 28)), userID: anna.id, zone: "Europe/Berlin")
        try fixture.runner().run(now: Self.now)
        let summaries = SummaryStore(connection: fixture.connection)
        #expect(try summaries.summary(userID: anna.id, horizon: .weekly)?.estimatedNeed == nil)

        let user = try UserStore(connection: fixture.connection).update(
            handle: "anna", goals: SleepGoals(workDays: WorkDays(isoWeekdays: [1, 2, 3]), target: .estimatedNeed))
        #expect(user.goals.target == .estimatedNeed && user.goals.workDays.isoWeekdays == [1, 2, 3])
        let report = try fixture.runner().run(now: Self.now)
        #expect(report.usersDone == 1 && report.nightsWritten == 0)
        let weekly = try #require(try summaries.summary(userID: anna.id, horizon: .weekly))
        let nights = try NightStore(connection: fixture.connection).nights(userID: anna.id)
        let expected = SummaryBuilder(nights: nights, goals: user.goals).summary(horizon: .weekly, asOf: weekly.asOf)
        #expect(weekly.estimatedNeed == expected.estimatedNeed)
        #expect(weekly.estimatedNeed != nil)
        #expect(weekly.debt == expected.debt)
        let stored = try #require(try PersonalEstimateStore(connection: fixture.connection).read(userID: anna.id))
        #expect(
            stored.need == SleepNeedEstimate.estimate(nights: nights, asOf: weekly.asOf, workDays: user.goals.workDays))
    }
}
