import LedgerServices
import LedgerStore
import SleepCore
import Testing

@Suite("User service")
struct UserServiceTests {
    /// The error a rule throws, or `nil` when it accepts.
    static func refusal(_ rule: () throws(ServiceError) -> Void) -> ServiceError? {
        do {
            try rule()
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "handles: 1-64 letters, digits, '.', '_', '-' or '@'",
        arguments: [
            ("anna", true), ("anna.b_c-d@example", true), ("Åsa", true), ("李", true), ("", false),
            (String(repeating: "a", count: 64), true), (String(repeating: "a", count: 65), false),
            ("bob smith", false), ("semi;colon", false), ("slash/", false),
        ])
    func handleRule(handle: String, isValid: Bool) {
        let refusal = Self.refusal { () throws(ServiceError) in try UserService.validate(handle: handle) }
        #expect((refusal == nil) == isValid)
        #expect(refusal.map { $0.kind == .invalidInput } ?? true)
    }

    @Test(
        "zones: IANA names this system knows, and UTC",
        arguments: [
            ("Europe/Berlin", true), ("UTC", true), ("America/New_York", true), ("Mars/Olympus", false),
            ("", false), ("+02:00", false),
        ])
    func zoneRule(zone: String, isValid: Bool) {
        let refusal = Self.refusal { () throws(ServiceError) in try UserService.validate(timeZone: zone) }
        #expect((refusal == nil) == isValid)
    }

    @Test(
        "goals: a minimum above zero and a target not below it",
        arguments: [
            (8 * 3600, 7 * 3600, nil), (7 * 3600, 7 * 3600, nil),
            (6 * 3600, 7 * 3600, "target sleep 6h is below the minimum 7h"),
            (8 * 3600, 0, "minimum acceptable sleep must be above zero"),
        ] as [(Int64, Int64, String?)])
    func goalRule(target: Int64, minimum: Int64, message: String?) {
        let refusal = Self.refusal { () throws(ServiceError) in
            try UserService.validate(goals: SleepGoals(targetSeconds: target, minimumSeconds: minimum))
        }
        #expect(refusal?.message == message)
    }

    @Test("add, find in any case, update, remove; a taken handle and an unknown one are named")
    func lifecycle() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        let anna = try users.add(handle: "anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        #expect(anna.goals == SleepGoals())
        #expect(try users.user(handle: "ANNA") == anna)

        let taken = #expect(throws: ServiceError.self) {
            try users.add(handle: "Anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        }
        #expect(taken?.kind == .alreadyExists)
        #expect(taken?.message == "a user with handle 'Anna' already exists")

        let updated = try users.update(handle: "anna", timeZone: nil, targetSeconds: 9 * 3600, minimumSeconds: nil)
        #expect(updated.goals == SleepGoals(targetSeconds: 9 * 3600, minimumSeconds: 7 * 3600))
        #expect(updated.timeZoneIdentifier == "Europe/Berlin")
        let below = #expect(throws: ServiceError.self) {
            try users.update(handle: "anna", timeZone: nil, targetSeconds: nil, minimumSeconds: 10 * 3600)
        }
        #expect(below?.kind == .invalidInput)

        try users.remove(handle: "anna")
        for attempt in [
            { _ = try users.user(handle: "anna") },
            { try users.remove(handle: "anna") },
            { _ = try users.update(handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil) },
        ] as [() throws -> Void] {
            let unknown = #expect(throws: ServiceError.self) { try attempt() }
            #expect(unknown?.kind == .notFound)
            #expect(unknown?.message == "no user with handle 'anna'")
        }
        #expect(try users.list().isEmpty)
    }
}
