import Foundation
import SleepCore
import SleepReports
import Testing

/// The debt series document: the keys of docs/http-api.md's `GET /api/v1/debt` example and
/// docs/summary-json.md's `debt`, `goal_band` and `buckets[]`, with ``ReportFixtures``' week.
@Suite("DebtSeries")
struct DebtSeriesTests {
    static func json(_ series: DebtSeries) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(series)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the handle, horizon, as-of day, goals, totals and one bucket per day")
    func weekly() throws {
        let object = try Self.json(DebtSeries(summary: ReportFixtures.summary(), handle: "anna"))
        #expect(Set(object.keys) == ["as_of", "buckets", "debt", "goal_band", "handle", "horizon"])
        #expect(object["handle"] as? String == "anna")
        #expect(object["horizon"] as? String == "weekly")
        #expect(object["as_of"] as? String == "2025-03-17")
        let band = try #require(object["goal_band"] as? [String: Any])
        #expect(band["minimum_seconds"] as? Int == 25_200 && band["target_seconds"] as? Int == 28_800)
        let debt = try #require(object["debt"] as? [String: Any])
        #expect(debt["debt_seconds"] as? Int == 19_800)
        #expect(debt["net_balance_seconds"] as? Int == -16_200)
        #expect(debt["tracked_nights"] as? Int == 4)
        #expect(debt["average_asleep_seconds"] as? Int == 24_750)
        #expect(debt["average_nightly_balance_seconds"] as? Int == -4_050)
        #expect(debt["severity"] as? String == "critical")
        let buckets = try #require(object["buckets"] as? [[String: Any]])
        #expect(buckets.count == 7)
        for (index, (bucket, expected)) in zip(buckets, ReportFixtures.expectedBuckets).enumerated() {
            let day = ReportFixtures.days[index].description
            #expect(bucket["range"] as? [String: String] == ["first": day, "last": day])
            #expect(bucket["debt_seconds"] as? Int == Int(expected.0), "\(day)")
            #expect(bucket["net_balance_seconds"] as? Int == Int(expected.1), "\(day)")
            #expect(bucket["tracked_nights"] as? Int == expected.2, "\(day)")
            #expect(bucket["average_asleep_seconds"] as? Int == expected.3.map(Int.init), "\(day)")
            #expect(bucket["below_minimum"] as? Bool == expected.4, "\(day)")
            #expect(bucket["cumulative_debt_seconds"] as? Int == Int(expected.5), "\(day)")
        }
    }

    @Test("it is the summary's series: every horizon's buckets and totals, decoded back equal")
    func roundTrip() throws {
        for horizon in Horizon.allCases {
            let summary = ReportFixtures.summary(horizon)
            let series = DebtSeries(summary: summary, handle: "anna")
            #expect(series.buckets == summary.buckets && series.debt == summary.debt)
            #expect(series.goalBand == summary.goalBand && series.asOf == summary.asOf)
            let decoded = try JSONDecoder().decode(DebtSeries.self, from: JSONEncoder().encode(series))
            #expect(decoded == series)
        }
    }
}
