import LedgerServices
import SleepCore
import Testing

@testable import LedgerReadServices

@Suite("Users overview")
struct UsersOverviewTests {
    /// A row with only what the orders read.
    static func row(_ handle: String, debt: Int64? = nil, score: Int? = nil, lastNight: LocalDate? = nil)
        -> UsersOverview.Row
    {
        UsersOverview.Row(
            handle: handle, timeZone: "UTC", trackedNights: 0, lastNightWakeDay: lastNight,
            lastNightAsleepSeconds: nil, asOf: nil, debtSeconds: debt, severity: nil, score: score, grade: nil,
            lastImportAt: nil, lastRollupAt: nil)
    }

    static let day = LocalDate(year: 2025, month: 2, day: 10)
    /// In handle order, as the store returns them.
    static let rows = [
        row("anna", debt: 3_600, score: 70, lastNight: day),
        row("ben"),
        row("cara", debt: 7_200, score: 55, lastNight: day.adding(days: -3)),
        row("dan", debt: 3_600, score: 70, lastNight: day),
    ]

    @Test(
        "each order, ties and missing values in handle order",
        arguments: [
            (UsersOverview.Sort.handle, ["anna", "ben", "cara", "dan"]),
            (.debt, ["cara", "anna", "dan", "ben"]),
            (.score, ["cara", "anna", "dan", "ben"]),
            (.lastNight, ["ben", "cara", "anna", "dan"]),
        ])
    func orders(sort: UsersOverview.Sort, handles: [String]) {
        #expect(UserService.sorted(Self.rows, by: sort).map(\.handle) == handles)
    }

    @Test("users without nights have no weekly figures; the severity filter keeps the user count")
    func withoutNights() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        try users.add(handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)

        let all = try users.overview(asOf: nil, severity: nil, sort: .handle)
        #expect(all.rows.map(\.handle) == ["anna", "ben"])
        #expect(all.userCount == 2)
        #expect(all.rows.allSatisfy { $0.trackedNights == 0 && $0.debtSeconds == nil && $0.asOf == nil })

        let critical = try users.overview(asOf: Self.day, severity: .critical, sort: .debt)
        #expect(critical.rows.isEmpty)
        #expect(critical.userCount == 2)
        #expect(critical.asOf == Self.day)
    }
}
