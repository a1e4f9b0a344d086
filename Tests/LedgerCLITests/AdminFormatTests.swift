import Foundation
import LedgerCLI
import LedgerStore
import SleepCore
import Testing

/// JSON round trips through the SleepCore types and CSV parsed back, for the fixture.
@Suite("sleepledger-admin JSON and CSV")
struct AdminFormatTests {
    @Test("summary --format json decodes to the Summary the rollup stored, and --as-of to the one SleepCore builds")
    func summaryJSON() throws {
        let fixture = try AdminFixture.shared()
        for horizon in Horizon.allCases {
            let (code, captured) = runAdmin(
                ["summary", "anna", "--horizon", horizon.rawValue, "--format", "json"], environment: fixture.environment
            )
            #expect(code == .success, "\(captured.errorText)")
            let decoded = try JSONDecoder().decode(Summary.self, from: Data(captured.printed.utf8))
            #expect(
                decoded == SummaryBuilder(nights: fixture.annaNights).summary(horizon: horizon, asOf: AdminFixture.asOf)
            )
        }
        let asOf = LocalDate(year: 2025, month: 2, day: 10)
        let (code, captured) = runAdmin(
            ["summary", "anna", "--as-of", "2025-02-10", "--format", "json"], environment: fixture.environment)
        #expect(code == .success)
        let decoded = try JSONDecoder().decode(Summary.self, from: Data(captured.printed.utf8))
        #expect(decoded == SummaryBuilder(nights: fixture.annaNights).summary(horizon: .weekly, asOf: asOf))
        #expect(decoded.asOf == asOf)
    }

    @Test("debt --format json carries the buckets of the stored summary; csv has one row per bucket")
    func debtJSONAndCSV() throws {
        let fixture = try AdminFixture.shared()
        let stored = SummaryBuilder(nights: fixture.annaNights).summary(horizon: .monthly, asOf: AdminFixture.asOf)
        var (code, captured) = runAdmin(
            ["debt", "anna", "--horizon", "monthly", "--format", "json"], environment: fixture.environment)
        #expect(code == .success)
        struct Series: Decodable {
            var handle: String
            var horizon: Horizon
            var asOf: LocalDate
            var goalBand: GoalBand
            var debt: DebtTotals
            var buckets: [HorizonBucket]

            enum CodingKeys: String, CodingKey {
                case handle, horizon, debt, buckets
                case asOf = "as_of"
                case goalBand = "goal_band"
            }
        }
        let series = try JSONDecoder().decode(Series.self, from: Data(captured.printed.utf8))
        #expect(series.handle == "anna")
        #expect(series.horizon == .monthly)
        #expect(series.asOf == AdminFixture.asOf)
        #expect(series.buckets == stored.buckets)
        #expect(series.debt == stored.debt)
        #expect(series.goalBand == GoalBand(minimumSeconds: 25_200, targetSeconds: 28_800))

        (code, captured) = runAdmin(["debt", "anna", "--format", "csv"], environment: fixture.environment)
        #expect(code == .success)
        #expect(captured.printed.hasSuffix("\r\n"))
        let rows = parseCSV(captured.printed)
        #expect(
            rows.first == [
                "first", "last", "tracked_nights", "debt_seconds", "net_balance_seconds", "cumulative_debt_seconds",
                "average_asleep_seconds", "below_minimum",
            ])
        #expect(rows.count == 8)  // header + 7 days
        // 2025-03-12: 6h 57m asleep (the golden nights listing) is 63 minutes short of 8h.
        let day = try #require(rows.first { $0.first == "2025-03-12" })
        #expect(day[2] == "1")
        #expect(Int(day[3]).map { abs($0 - 63 * 60) < 60 } == true)
        #expect(day[7] == "true")
        // The cumulative column is the running sum of the shortfalls.
        var running = 0
        for row in rows.dropFirst() {
            running += Int(row[3]) ?? -1_000_000
            #expect(Int(row[5]) == running)
        }
    }

    @Test("nights --format json decodes to the stored nights; csv round-trips every night with quoting")
    func nightsJSONAndCSV() throws {
        let fixture = try AdminFixture.shared()
        var (code, captured) = runAdmin(
            ["nights", "anna", "--naps", "--format", "json"], environment: fixture.environment)
        #expect(code == .success)
        struct Listing: Decodable {
            var handle: String
            var nights: [Night]
            var naps: [Nap]?
        }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(captured.printed.utf8))
        #expect(listing.nights == fixture.annaNights.sorted { $0.wakeDay < $1.wakeDay })
        #expect(listing.naps?.count == fixture.annaNaps.count)

        (code, captured) = runAdmin(
            ["nights", "anna", "--from", "2025-02-01", "--to", "2025-02-28", "--format", "csv"],
            environment: fixture.environment)
        #expect(code == .success)
        let rows = parseCSV(captured.printed)
        let expected = fixture.annaNights.filter {
            $0.wakeDay >= LocalDate(year: 2025, month: 2, day: 1)
                && $0.wakeDay <= LocalDate(year: 2025, month: 2, day: 28)
        }
        #expect(rows.count == expected.count + 1)
        // The 22 columns of a night and, last, its confidence (issue 24).
        #expect(rows.allSatisfy { $0.count == 23 })
        let header = try #require(rows.first)
        #expect(header.last == "confidence")
        #expect(rows.dropFirst().allSatisfy { row in Double(row[22]).map { (0...1).contains($0) } ?? false })
        for (row, night) in zip(rows.dropFirst(), expected) {
            #expect(row[0] == night.wakeDay.description)
            #expect(Int64(row[header.firstIndex(of: "asleep_seconds") ?? 0]) == night.asleepSeconds)
            #expect(Int64(row[header.firstIndex(of: "deep_seconds") ?? 0]) == night.stages.deep)
            #expect(row[header.firstIndex(of: "source") ?? 0] == night.source)
        }
        // "Anna's Apple Watch" has no comma, but the imports CSV's "sleep, march.csv" does.
        (code, captured) = runAdmin(["imports", "anna", "--format", "csv"], environment: fixture.environment)
        let imports = parseCSV(captured.printed)
        #expect(imports.count == 3)
        #expect(imports[1][3] == "sleep, march.csv")
        #expect(
            imports[1][11]
                == "endBeforeStart sample ends before it starts (1)\nunknownStage unknown sleep value HKCategoryValueSleepAnalysisNap (1)"
        )
    }

    @Test("users --format json and csv: one entry per user, sorted and filtered like the text")
    func usersJSONAndCSV() throws {
        let fixture = try AdminFixture.shared()
        var (code, captured) = runAdmin(
            ["users", "--sort", "debt", "--format", "json"], environment: fixture.environment)
        #expect(code == .success)
        let users = try #require(
            try JSONSerialization.jsonObject(with: Data(captured.printed.utf8)) as? [[String: Any]])
        #expect(users.map { $0["handle"] as? String } == ["dan", "anna", "ben", "cara"])
        let annaWeekly = SummaryBuilder(nights: fixture.annaNights).summary(horizon: .weekly, asOf: AdminFixture.asOf)
        #expect(users[1]["debt_seconds"] as? Int == Int(annaWeekly.debt.debtSeconds))
        #expect(users[1]["score"] as? Int == annaWeekly.score.overall)
        #expect(users[1]["last_rollup_at"] as? Int == Int(AdminFixture.rollupAt))
        #expect(users[2]["debt_seconds"] == nil)

        (code, captured) = runAdmin(
            ["users", "--severity", "critical", "--format", "csv"], environment: fixture.environment)
        let rows = parseCSV(captured.printed)
        #expect(rows.first?.first == "handle")
        #expect(rows.dropFirst().map { $0[0] } == ["anna", "dan"])
        #expect(rows.dropFirst().allSatisfy { $0[7] == "critical" })
        #expect(rows[1][11] == "2025-03-17T04:00:00Z")
    }

    @Test("users --as-of computes the 7-day figures from the stored nights")
    func usersAsOf() throws {
        let fixture = try AdminFixture.shared()
        let (code, captured) = runAdmin(
            ["users", "--as-of", "2025-02-10", "--format", "json"], environment: fixture.environment)
        #expect(code == .success)
        let users = try #require(
            try JSONSerialization.jsonObject(with: Data(captured.printed.utf8)) as? [[String: Any]])
        let anna = try #require(users.first { $0["handle"] as? String == "anna" })
        let expected = SummaryBuilder(nights: fixture.annaNights).summary(
            horizon: .weekly, asOf: LocalDate(year: 2025, month: 2, day: 10))
        #expect(anna["debt_seconds"] as? Int == Int(expected.debt.debtSeconds))
        #expect(anna["as_of"] as? String == "2025-02-10")
        #expect(anna["last_night_wake_day"] as? String == "2025-02-10")
    }
}
