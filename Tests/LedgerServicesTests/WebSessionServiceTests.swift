import Foundation
import LedgerCrypto
import LedgerPasswordHash
import LedgerServices
import LedgerStore
import PostgresClient
import Testing

@testable import LedgerServices

/// Passwords and web sessions through the services: the operator's setting on the
/// operator's session, sign-in and everything after it on the server's role (row-level
/// security), with the clock injected.
@Suite("Web sessions and passwords")
struct WebSessionServiceTests {
    static let now: Int64 = 1_764_590_000
    static let password = "correct horse battery staple"
    /// Cheap parameters, so that the tests spend no time hashing (the standard ones are
    /// checked where their cost matters).
    static let hashing = PasswordHashing(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1))

    /// The fixture, a session as the server's role, and Anna (with a password) and Ben.
    static func setUp() throws -> (fixture: ServiceFixture, server: LedgerSession, anna: User, ben: User) {
        let fixture = try ServiceFixture()
        let users = UserService(session: fixture.session)
        let anna = try users.add(handle: "Anna", timeZone: "Europe/Berlin", targetSeconds: nil, minimumSeconds: nil)
        let ben = try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        _ = try PasswordService(session: fixture.session, hashing: hashing).set(
            handle: "anna", password: password, now: now)
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        return (fixture, try fixture.database.openAsServer(serverURL: serverURL), anna, ben)
    }

    static func sessions(_ fixture: ServiceFixture, _ user: User) throws -> Int {
        try fixture.session.connection.execute(
            "SELECT count(*) FROM web_sessions WHERE user_id = $1", [.int64(user.id)]
        ).single().int(0) ?? -1
    }

    @Test("a password is stored as Argon2id with its parameters and a salt of its own, never as given")
    func storedAsArgon2id() throws {
        let (fixture, server, anna, ben) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        _ = try PasswordService(session: fixture.session, hashing: Self.hashing).set(
            handle: "BEN", password: Self.password, now: Self.now)
        let hashes = try [anna, ben].map { user in
            try #require(try PasswordStore(connection: fixture.session.connection).passwordHash(userID: user.id))
        }
        for hash in hashes {
            #expect(hash.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"), "\(hash)")
            #expect(Argon2id.parameters(of: hash)?.saltLength == 16)
            #expect(Argon2id.verify(Array(Self.password.utf8), encoded: hash))
        }
        #expect(hashes[0] != hashes[1], "the same password, different salts")
        let everything = try fixture.session.connection.execute("SELECT p::text FROM user_passwords p").rows
            .compactMap { try $0.string(0) }.joined()
        #expect(!everything.contains("horse"))
    }

    @Test(
        "password rules: at least 10 characters after NFKC, at most 1024 bytes, no control characters",
        arguments: [
            ("short", false),
            ("ninechars", false),
            ("tenchars!!", true),
            ("åååååååååå", true),
            ("passphrase\nwith a break", false),
            ("tab\there and more", false),
            (String(repeating: "a", count: 1024), true),
            (String(repeating: "a", count: 1025), false),
            (String(repeating: "é", count: 513), false),
        ])
    func rules(password: String, isAccepted: Bool) {
        let result = Result { () throws(ServiceError) in try PasswordRules.newPassword(password) }
        switch result {
        case .success: #expect(isAccepted)
        case .failure(let error):
            #expect(!isAccepted)
            #expect(error.kind == .invalidInput)
            #expect(!error.message.contains(password), "the message never shows the password")
        }
    }

    @Test("the same characters typed on different systems are the same password (NFKC)")
    func normalization() {
        // Precomposed and decomposed é; the ligature ﬁ and "fi"; full-width and ASCII letters.
        #expect(PasswordRules.normalized("caf\u{E9} au lait") == PasswordRules.normalized("cafe\u{301} au lait"))
        #expect(PasswordRules.normalized("\u{FB01}ve fingers") == PasswordRules.normalized("five fingers"))
        #expect(PasswordRules.normalized("\u{FF21}BCDEFGHIJK") == PasswordRules.normalized("ABCDEFGHIJK"))
        #expect(PasswordRules.normalized(String(repeating: "x", count: 5000)) == nil)
    }

    @Test("signing in makes a session stored as the SHA-256 of its id; the cookie speaks for the person")
    func signIn() throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let signedIn = try sessions.signIn(handle: "ANNA", password: Self.password, now: Self.now)
        #expect(signedIn.userID == anna.id)
        #expect(signedIn.expiresAt == Self.now + 30 * 86_400)
        #expect(signedIn.cookieValue.wholeMatch(of: /[A-Za-z0-9_-]{43}/) != nil)
        let stored = try fixture.session.connection.execute(
            "SELECT secret_sha256 FROM web_sessions WHERE user_id = $1", [.int64(anna.id)]
        ).single().bytes(0)
        let secret = try #require(CookieSecret.bytes(of: signedIn.cookieValue))
        let storedBytes: [UInt8]? = stored.map { Array($0) }
        #expect(storedBytes == SHA256Digest.digest(of: secret))

        let visitor = try sessions.visitor(cookieValue: signedIn.cookieValue, now: Self.now + 10)
        #expect(visitor.userID == anna.id)
        #expect(visitor.caller.scope == .full && visitor.caller.userID == anna.id)
        #expect(visitor.csrfToken == CookieSecret.formToken(for: signedIn.cookieValue, purpose: .session))
        #expect(CookieSecret.isValid(visitor.csrfToken, for: signedIn.cookieValue, purpose: .session))
        #expect(!CookieSecret.isValid(visitor.csrfToken, for: signedIn.cookieValue, purpose: .signIn))
        // A second sign-in is another session with another token.
        let second = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        #expect(second.cookieValue != signedIn.cookieValue)
        #expect(try sessions.visitor(cookieValue: second.cookieValue, now: Self.now).csrfToken != visitor.csrfToken)
    }

    @Test(
        "a wrong password, an unknown handle and a person without a password are refused alike",
        arguments: [
            ("anna", "correct horse battery stapler"),
            ("anna", ""),
            ("anna", String(repeating: "x", count: 5000)),
            ("nobody", "correct horse battery staple"),
            ("ben", "correct horse battery staple"),
            ("not a handle!", "correct horse battery staple"),
            ("", ""),
        ])
    func refused(handle: String, password: String) throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let refused = #expect(throws: ServiceError.self) {
            try WebSessionService(session: server, hashing: Self.hashing).signIn(
                handle: handle, password: password, now: Self.now)
        }
        #expect(refused?.kind == .unauthorized)
        #expect(refused?.message == "the handle or the password is wrong")
        #expect(try Self.sessions(fixture, anna) == 0)
    }

    @Test(
        "malformed and unknown ids are refused, and sessions end 30 days after sign-in or 7 days unused",
        arguments: [
            (0, true), (29 * 86_400, true), (30 * 86_400, true), (7 * 86_400 - 1, false), (7 * 86_400, false),
        ] as [(Int64, Bool)])
    func expiry(after seconds: Int64, isStillUsedDaily: Bool) throws {
        let (fixture, server, _, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let signedIn = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        // Used every day up to the end of the lifetime: the idle rule never ends it.
        var day: Int64 = 0
        while isStillUsedDaily && day + 86_400 < seconds {
            day += 86_400
            _ = try sessions.visitor(cookieValue: signedIn.cookieValue, now: Self.now + day)
        }
        let valid = seconds < 30 * 86_400 && (seconds - day) < 7 * 86_400
        let result = Result { () throws(ServiceError) in
            try sessions.visitor(cookieValue: signedIn.cookieValue, now: Self.now + seconds)
        }
        switch result {
        case .success: #expect(valid, "valid after \(seconds) s")
        case .failure(let error):
            #expect(!valid, "refused after \(seconds) s")
            #expect(error.kind == .unauthorized)
        }
        for malformed in ["", "x", String(signedIn.cookieValue.dropLast()), signedIn.cookieValue + "A"] {
            let refused = #expect(throws: ServiceError.self) {
                try sessions.visitor(cookieValue: malformed, now: Self.now)
            }
            #expect(refused?.kind == .unauthorized)
        }
        let unknown = #expect(throws: ServiceError.self) {
            try sessions.visitor(cookieValue: try CookieSecret.generate(), now: Self.now)
        }
        #expect(unknown?.kind == .unauthorized)
    }

    @Test("use is written at most once a minute")
    func lastUse() throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let signedIn = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        func lastUsed() throws -> Int64? {
            try fixture.session.connection.execute(
                "SELECT last_used_at FROM web_sessions WHERE user_id = $1", [.int64(anna.id)]
            ).single().epochSeconds(0)
        }
        _ = try sessions.visitor(cookieValue: signedIn.cookieValue, now: Self.now + 30)
        #expect(try lastUsed() == Self.now)
        _ = try sessions.visitor(cookieValue: signedIn.cookieValue, now: Self.now + 90)
        #expect(try lastUsed() == Self.now + 90)
    }

    @Test("signing out ends that session only")
    func signOut() throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let phone = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        let laptop = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        try sessions.signOut(try sessions.visitor(cookieValue: phone.cookieValue, now: Self.now))
        let ended = #expect(throws: ServiceError.self) {
            try sessions.visitor(cookieValue: phone.cookieValue, now: Self.now)
        }
        #expect(ended?.kind == .unauthorized)
        #expect(try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now).userID == anna.id)
        #expect(try Self.sessions(fixture, anna) == 1)
    }

    @Test("changing the password needs the current one and ends the person's other sessions")
    func change() throws {
        let (fixture, server, anna, ben) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        _ = try PasswordService(session: fixture.session, hashing: Self.hashing).set(
            handle: "ben", password: "bens own password", now: Self.now)
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let passwords = PasswordService(session: server, hashing: Self.hashing)
        let phone = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        let laptop = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        let bens = try sessions.signIn(handle: "ben", password: "bens own password", now: Self.now)
        let visitor = try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now)

        let wrong = #expect(throws: ServiceError.self) {
            try passwords.change(
                userID: anna.id, current: "not the password", new: "a brand new passphrase", keeping: visitor,
                now: Self.now)
        }
        #expect(wrong?.kind == .forbidden)
        let short = #expect(throws: ServiceError.self) {
            try passwords.change(
                userID: anna.id, current: Self.password, new: "short", keeping: visitor, now: Self.now)
        }
        #expect(short?.kind == .invalidInput)
        #expect(try Self.sessions(fixture, anna) == 2, "nothing changed yet")

        try passwords.change(
            userID: anna.id, current: Self.password, new: "a brand new passphrase", keeping: visitor, now: Self.now + 5)
        #expect(try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now + 6).userID == anna.id)
        let ended = #expect(throws: ServiceError.self) {
            try sessions.visitor(cookieValue: phone.cookieValue, now: Self.now + 6)
        }
        #expect(ended?.kind == .unauthorized)
        #expect(try sessions.visitor(cookieValue: bens.cookieValue, now: Self.now + 6).userID == ben.id)
        let old = #expect(throws: ServiceError.self) {
            try sessions.signIn(handle: "anna", password: Self.password, now: Self.now + 7)
        }
        #expect(old?.kind == .unauthorized)
        _ = try sessions.signIn(handle: "anna", password: "a brand new passphrase", now: Self.now + 7)

        // The operator's setting ends every session of the person.
        let (_, endedByOperator) = try PasswordService(session: fixture.session, hashing: Self.hashing).set(
            handle: "anna", password: "set by the operator", now: Self.now + 8)
        #expect(endedByOperator == 2)
        #expect(try Self.sessions(fixture, anna) == 0)
        #expect(try Self.sessions(fixture, ben) == 1)
    }

    @Test("a person's sessions are listed with their last address (recorded at most once a minute), theirs only")
    func listedWithAddresses() throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        _ = try PasswordService(session: fixture.session, hashing: Self.hashing).set(
            handle: "ben", password: "bens own password", now: Self.now)
        let sessions = WebSessionService(
            session: server, hashing: Self.hashing, policy: .init(lifetimeSeconds: 86_400, idleSeconds: 3600))
        let phone = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now, address: "192.0.2.1")
        let laptop = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now + 1)
        _ = try sessions.signIn(handle: "ben", password: "bens own password", now: Self.now, address: "203.0.113.9")
        let visitor = try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now + 2, address: "2001:db8::1")
        // Within the minute the use is not recorded, nor its address.
        var listed = try sessions.list(userID: anna.id, current: visitor, now: Self.now + 2)
        #expect(listed.map(\.address) == [nil, "192.0.2.1"])
        #expect(listed.map(\.isCurrent) == [true, false] && listed.map(\.createdAt) == [Self.now + 1, Self.now])
        // A minute on, the phone's use records its new address and puts it first.
        _ = try sessions.visitor(cookieValue: phone.cookieValue, now: Self.now + 70, address: "198.51.100.7")
        _ = try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now + 65, address: "2001:db8::1")
        listed = try sessions.list(userID: anna.id, current: visitor, now: Self.now + 70)
        #expect(listed.map(\.address) == ["198.51.100.7", "2001:db8::1"])
        #expect(listed.map(\.lastUsedAt) == [Self.now + 70, Self.now + 65])
        #expect(try sessions.list(userID: anna.id, current: nil, now: Self.now + 70).allSatisfy { !$0.isCurrent })
        // Idle ones are not listed; and an over-long address is not kept.
        #expect(try sessions.list(userID: anna.id, current: nil, now: Self.now + 3666).count == 1)
        _ = try sessions.visitor(
            cookieValue: phone.cookieValue, now: Self.now + 200, address: String(repeating: "x", count: 200))
        #expect(try sessions.list(userID: anna.id, current: nil, now: Self.now + 200).first?.address == "198.51.100.7")
        // Sign out everywhere else: Ben's session stays.
        #expect(try sessions.endOthers(userID: anna.id, keeping: visitor) == 1)
        #expect(try sessions.list(userID: anna.id, current: visitor, now: Self.now + 200).map(\.isCurrent) == [true])
        #expect(try Self.sessions(fixture, anna) == 1)
        #expect(try sessions.endOthers(userID: anna.id, keeping: nil) == 1)
        #expect(try Self.sessions(fixture, anna) == 0)
    }

    @Test("a change of password revokes the person's tokens when asked to, and only theirs", arguments: [false, true])
    func changeRevokingTokens(revokingTokens: Bool) throws {
        let (fixture, server, anna, ben) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let tokens = TokenService(session: fixture.session)
        let annas = try tokens.create(for: anna, name: "phone", scope: .ingest)
        _ = try tokens.create(for: ben, name: "phone", scope: .ingest)
        let sessions = WebSessionService(session: server, hashing: Self.hashing)
        let laptop = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        let visitor = try sessions.visitor(cookieValue: laptop.cookieValue, now: Self.now)
        try PasswordService(session: server, hashing: Self.hashing).change(
            userID: anna.id, current: Self.password, new: "a brand new passphrase", keeping: visitor,
            revokingTokens: revokingTokens, now: Self.now + 5)
        #expect(try tokens.list(for: anna).map(\.revokedAt) == [revokingTokens ? Self.now + 5 : nil])
        #expect(try tokens.list(for: ben).map(\.revokedAt) == [nil])
        let check = Result { try TokenService(session: server).authenticate(annas.token, now: Self.now + 6) }
        #expect(((try? check.get()) == nil) == revokingTokens)
    }

    @Test("signing in removes ended sessions, and the oldest beyond the most a person keeps")
    func pruning() throws {
        let (fixture, server, anna, _) = try Self.setUp()
        defer {
            server.close()
            fixture.close()
        }
        let sessions = WebSessionService(
            session: server, hashing: Self.hashing,
            policy: .init(lifetimeSeconds: 3600, idleSeconds: 600, maximumPerUser: 3))
        let first = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now)
        for second in 1...3 {
            _ = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now + Int64(second))
        }
        #expect(try Self.sessions(fixture, anna) == 3)
        let oldest = #expect(throws: ServiceError.self) {
            try sessions.visitor(cookieValue: first.cookieValue, now: Self.now + 4)
        }
        #expect(oldest?.kind == .unauthorized)
        // Past their idle time, the others go at the next sign-in.
        _ = try sessions.signIn(handle: "anna", password: Self.password, now: Self.now + 700)
        #expect(try Self.sessions(fixture, anna) == 1)
    }

    @Test("hashes run at most `maximumConcurrent` at once; one that cannot start in time is refused as busy")
    func boundedHashing() throws {
        let hashing = PasswordHashing(
            parameters: .init(memoryKiB: 64 << 10, iterations: 6, parallelism: 1), maximumConcurrent: 1,
            waitSeconds: 0.05)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            started.signal()
            _ = try? hashing.hash(Array("first of two at once".utf8))
            done.signal()
        }
        started.wait()
        usleep(30_000)
        let busy = #expect(throws: ServiceError.self) { try hashing.hash(Array("second of two at once".utf8)) }
        #expect(busy?.kind == .busy)
        done.wait()
        #expect(try hashing.hash(Array("after the first one".utf8)).hasPrefix("$argon2id$"))
    }
}
