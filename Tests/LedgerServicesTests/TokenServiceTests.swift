import Foundation
import LedgerCrypto
import LedgerServices
import LedgerStore
import PostgresClient
import Synchronization
import Testing

@testable import LedgerServices

@Suite("Token service")
struct TokenServiceTests {
    static let now: Int64 = 1_764_590_000

    @Test("a token is printed once as sl_<16 hex>_<43 base64url>; only the secret's SHA-256 is stored")
    func createdAndStoredAsHash() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let tokens = TokenService(session: fixture.session)
        let issued = try tokens.create(for: anna, name: "phone", scope: .ingest)
        #expect(issued.token.wholeMatch(of: /sl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/) != nil)
        #expect(issued.record.scope == .ingest && issued.record.name == "phone")
        let (id, secret) = try #require(TokenService.parse(issued.token))
        #expect(id == issued.record.id)
        let stored = try fixture.session.connection.execute(
            "SELECT secret_sha256 FROM api_tokens WHERE id = $1", [.int64(id)]
        ).single().bytes(0)
        #expect(stored.map(Array.init) == SHA256Digest.digest(of: secret))
        let everything = try fixture.session.connection.execute("SELECT t::text FROM api_tokens t").rows
            .compactMap { try $0.string(0) }.joined()
        #expect(!everything.contains(String(issued.token.dropFirst(20))))
        // Two tokens never share a secret or an id.
        let second = try tokens.create(for: anna, name: "laptop", scope: .full)
        #expect(second.record.id != issued.record.id && second.token != issued.token)
        #expect(try tokens.list(for: anna).map(\.name).sorted() == ["laptop", "phone"])
    }

    @Test("a valid token names its owner and scope; wrong, revoked and malformed ones are refused")
    func authentication() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let users = UserService(session: fixture.session)
        let anna = try users.add(handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let ben = try users.add(handle: "ben", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let tokens = TokenService(session: fixture.session)
        let annas = try tokens.create(for: anna, name: "phone", scope: .ingest)
        let bens = try tokens.create(for: ben, name: "token", scope: .full)

        let caller = try tokens.authenticate(annas.token, now: Self.now)
        #expect(caller == TokenService.Caller(userID: anna.id, tokenID: annas.record.id, scope: .ingest))
        #expect(try tokens.authenticate(bens.token, now: Self.now).userID == ben.id)
        #expect(try tokens.list(for: anna).first?.lastUsedAt == Self.now)

        // Anna's id with Ben's secret, a changed character, the wrong length, no prefix.
        let annasID = String(annas.token.prefix(20))
        let bensSecret = String(bens.token.dropFirst(20))
        var changed = Array(annas.token)
        changed[25] = changed[25] == "A" ? "B" : "A"
        for presented in [
            annasID + bensSecret, String(changed), String(annas.token.dropLast()), annas.token + "A",
            String(annas.token.dropFirst(3)), "", "Bearer " + annas.token, "sl_0000000000000000_" + bensSecret,
        ] {
            let refused = #expect(throws: ServiceError.self) { try tokens.authenticate(presented, now: Self.now) }
            #expect(refused?.kind == .unauthorized, "\(presented)")
        }

        try tokens.revoke(for: anna, id: TokenCommandID.hex(annas.record.id), now: Self.now)
        let revoked = #expect(throws: ServiceError.self) { try tokens.authenticate(annas.token, now: Self.now) }
        #expect(revoked?.kind == .unauthorized)
        // Ben cannot revoke Anna's token, and a revoked token cannot be revoked again.
        let notBens = #expect(throws: ServiceError.self) {
            try tokens.revoke(for: ben, id: TokenCommandID.hex(annas.record.id), now: Self.now)
        }
        #expect(notBens?.kind == .notFound)
        #expect(try tokens.list(for: anna).first?.revokedAt == Self.now)
    }

    @Test("a use is recorded at most once a minute: the look-up says when the last one was")
    func useRecordedOncePerMinute() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let tokens = TokenService(session: fixture.session)
        let issued = try tokens.create(for: anna, name: "phone", scope: .full)
        let store = TokenStore(connection: fixture.session.connection)
        #expect(try store.credentials(id: issued.record.id).map(\.lastUsedAt) == [nil])
        #expect(try store.credentials(id: issued.record.id).first?.isUseDue(at: Self.now) == true)
        for (offset, recorded) in [(0, 0), (30, 0), (60, 0), (61, 61), (100, 61), (122, 122)] {
            _ = try tokens.authenticate(issued.token, now: Self.now + Int64(offset))
            #expect(try tokens.list(for: anna).first?.lastUsedAt == Self.now + Int64(recorded), "\(offset)")
            #expect(
                try store.credentials(id: issued.record.id).map(\.lastUsedAt) == [Self.now + Int64(recorded)],
                "\(offset)")
        }
    }

    /// The hashes and constant-time comparisons a token check made.
    final class CheckCount: Sendable {
        private let counts = Mutex<(hashes: Int, comparisons: Int)>((0, 0))
        var recorded: (hashes: Int, comparisons: Int) { counts.withLock { $0 } }

        /// SHA-256 and the constant-time comparison, counted.
        var check: TokenService.Check {
            TokenService.Check(
                digest: { bytes in
                    self.counts.withLock { $0.hashes += 1 }
                    return SHA256Digest.digest(of: bytes)
                },
                equals: { first, second in
                    self.counts.withLock { $0.comparisons += 1 }
                    return ConstantTime.equals(first, second)
                })
        }
    }

    @Test("a check hashes and compares once whether the id is unknown, revoked, known with a wrong secret or right")
    func sameWorkWhetherTheIDExists() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let tokens = TokenService(session: fixture.session)
        let right = try tokens.create(for: anna, name: "phone", scope: .full)
        let other = try tokens.create(for: anna, name: "laptop", scope: .full)
        let revoked = try tokens.create(for: anna, name: "old", scope: .full)
        try tokens.revoke(for: anna, id: TokenService.idText(revoked.record.id), now: Self.now)
        let secret = String(right.token.dropFirst(20))
        let unknownID = TokenService.idText(max(1, right.record.id ^ 0x5A5A))
        let cases: [(String, Bool)] = [
            (right.token, true), (String(right.token.prefix(20)) + String(other.token.dropFirst(20)), false),
            ("sl_" + unknownID + "_" + secret, false), (revoked.token, false),
        ]
        for (presented, isValid) in cases {
            let count = CheckCount()
            let result = Result {
                try TokenService(session: fixture.session, check: count.check).authenticate(
                    presented, now: Self.now)
            }
            #expect(((try? result.get()) != nil) == isValid, "\(presented)")
            #expect(count.recorded.hashes == 1 && count.recorded.comparisons == 1, "\(presented)")
        }
    }

    /// Other spellings of one token (issue 20, F16): each would decode to the same id and
    /// secret were the reading lenient.
    static func otherSpellings(of token: String) -> [String] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var characters = Array(token)
        let upper = String(characters[0..<3]) + String(characters[3..<19]).uppercased() + String(characters[19...])
        // The last of 43 base64url characters carries 2 bits past the 32 bytes: flipping
        // its lowest bit decodes to the same secret.
        let last = characters.count - 1
        if let index = alphabet.firstIndex(of: characters[last]) { characters[last] = alphabet[index ^ 1] }
        let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return [upper, String(characters), "sl_" + String(standard.dropFirst(3))]
    }

    @Test("a token has one spelling: an upper-case id, standard base64 or a non-canonical last character is refused")
    func canonicalSpelling() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try UserService(session: fixture.session).add(
            handle: "anna", timeZone: "UTC", targetSeconds: nil, minimumSeconds: nil)
        let tokens = TokenService(session: fixture.session)
        // Until one has letters in its id and a '-' or '_' in its secret, so every spelling differs.
        var issued = try tokens.create(for: anna, name: "phone", scope: .full)
        while issued.token.dropFirst(3).prefix(16).allSatisfy(\.isNumber)
            || !issued.token.dropFirst(20).contains(where: { $0 == "-" || $0 == "_" })
        {
            issued = try tokens.create(for: anna, name: "phone", scope: .full)
        }
        #expect(try tokens.authenticate(issued.token, now: Self.now).userID == anna.id)
        for presented in Self.otherSpellings(of: issued.token) {
            #expect(presented != issued.token)
            let refused = #expect(throws: ServiceError.self) { try tokens.authenticate(presented, now: Self.now) }
            #expect(refused?.kind == .unauthorized, "\(presented)")
        }
    }

    @Test(
        "token names are 1-64 characters without control characters",
        arguments: [("phone", true), ("", false), (String(repeating: "x", count: 65), false), ("a\u{1B}[2J", false)])
    func names(name: String, isValid: Bool) throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser()
        let result = Result { try TokenService(session: fixture.session).create(for: anna, name: name, scope: .full) }
        #expect(((try? result.get()) != nil) == isValid)
    }
}

/// Token ids as the CLI shows them.
enum TokenCommandID {
    static func hex(_ id: Int64) -> String {
        let digits = String(UInt64(id), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
