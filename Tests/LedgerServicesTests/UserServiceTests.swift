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
        "handles: 1-64 letters, digits, '.', '_', '-' or '@', counted as characters; at most 256 bytes",
        arguments: [
            ("anna", true), ("anna.b_c-d@example", true), ("Åsa", true), ("李", true), ("", false),
            (String(repeating: "a", count: 64), true), (String(repeating: "a", count: 65), false),
            ("bob smith", false), ("semi;colon", false), ("slash/", false),
            // 64 characters however the accents are encoded: é decomposed is two code points.
            (String(repeating: "e\u{301}", count: 64), true), (String(repeating: "e\u{301}", count: 65), false),
            // q̃ has no precomposed form: 64 characters of two code points each.
            (String(repeating: "q\u{303}", count: 64), true), (String(repeating: "q\u{303}", count: 65), false),
            (String(repeating: "李", count: 64), true),  // 192 bytes
            ("a" + String(repeating: "\u{301}", count: 200), false),  // one character, 400 bytes in NFC
            (String(repeating: "a", count: 100_000), false),
            ("İsa", true), ("ısa", true), ("Straße", true),
            ("😀", false), ("anna😀", false), ("a\u{200D}b", false),  // emoji, zero-width joiner
            ("a\nb", false), ("a\u{1B}[31mb", false), ("a\u{7F}", false), ("a\u{85}", false),
        ])
    func handleRule(handle: String, isValid: Bool) {
        let refusal = Self.refusal { () throws(ServiceError) in try UserService.validate(handle: handle) }
        #expect((refusal == nil) == isValid)
        #expect(refusal.map { $0.kind == .invalidInput } ?? true)
        // Refusals are one line whatever the handle holds.
        #expect(refusal.map { !$0.message.contains(where: \.isNewline) } ?? true)
    }

    @Test(
        "the refusals say the rule and never split a line",
        arguments: [
            ("bob smith", "invalid handle 'bob smith': use 1-64 letters, digits, '.', '_', '-' or '@'"),
            ("a\nb", "invalid handle 'a\\nb': use 1-64 letters, digits, '.', '_', '-' or '@'"),
            ("x\u{1B}[2J", "invalid handle 'x\\u{1B}[2J': use 1-64 letters, digits, '.', '_', '-' or '@'"),
            (
                "a" + String(repeating: "\u{301}", count: 200),
                "invalid handle: 400 bytes in UTF-8; a handle holds at most 256 (1-64 letters, digits, '.', '_', '-' or '@', without piles of accents)"
            ),
        ])
    func handleMessages(handle: String, message: String) {
        let refusal = Self.refusal { () throws(ServiceError) in try UserService.validate(handle: handle) }
        #expect(refusal?.message == message)
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
            (24 * 3600, 24 * 3600, nil),
            (
                30 * 3600, 7 * 3600,
                "target sleep 30h is longer than a day; goals must satisfy 0 < minimum <= target <= 24h"
            ),
            (
                24 * 3600 + 60, 7 * 3600,
                "target sleep 24h 1m is longer than a day; goals must satisfy 0 < minimum <= target <= 24h"
            ),
            (
                30 * 3600, 25 * 3600,
                "minimum acceptable sleep 25h is longer than a day; goals must satisfy 0 < minimum <= target <= 24h"
            ),
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

        let deletion = AccountDeletion(tombstoneFile: nil, spoolHost: "here")
        _ = try deletion.delete(.handle("anna"), in: fixture.session, waitSeconds: nil)
        for attempt in [
            { _ = try users.user(handle: "anna") },
            { _ = try deletion.delete(.handle("anna"), in: fixture.session, waitSeconds: nil) },
            { _ = try users.update(handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil) },
        ] as [() throws -> Void] {
            let unknown = #expect(throws: ServiceError.self) { try attempt() }
            #expect(unknown?.kind == .notFound)
            #expect(unknown?.message == "no user with handle 'anna'")
        }
        #expect(try users.list().isEmpty)
    }

    @Test(
        "one handle under the Unicode rule: the second spelling is taken, and every spelling finds the user",
        arguments: [("Åsa", "åsa"), ("jos\u{E9}", "JOSE\u{301}"), ("Straße", "strasse")])
    func oneHandle(first: String, second: String) throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        let user = try users.add(handle: first, timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let taken = #expect(throws: ServiceError.self) {
            try users.add(handle: second, timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        }
        #expect(taken?.kind == .alreadyExists)
        #expect(taken?.message == "a user with handle '\(second)' already exists")
        #expect(try users.user(handle: second) == user)
    }

    @Test("renaming with update(newHandle:): checked by the handle rule, refused onto another user's handle")
    func rename() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        try users.add(handle: "Åsa", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let asa = try users.add(handle: "åsa2", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let taken = #expect(throws: ServiceError.self) {
            try users.update(handle: "ÅSA2", timeZone: nil, targetSeconds: nil, minimumSeconds: nil, newHandle: "ÅSA")
        }
        #expect(taken?.kind == .alreadyExists)
        #expect(taken?.message == "a user with handle 'ÅSA' already exists")
        let invalid = #expect(throws: ServiceError.self) {
            try users.update(handle: "åsa2", timeZone: nil, targetSeconds: nil, minimumSeconds: nil, newHandle: "å sa")
        }
        #expect(invalid?.kind == .invalidInput)
        let renamed = try users.update(
            handle: "åsa2", timeZone: nil, targetSeconds: nil, minimumSeconds: nil, newHandle: "Asa-Maria")
        #expect(renamed.id == asa.id)
        #expect(try users.user(handle: "asa-maria") == renamed)
    }
}
