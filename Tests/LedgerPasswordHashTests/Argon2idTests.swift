import Foundation
import LedgerCrypto
import LedgerPasswordHash
import Testing

/// Argon2id through libargon2: published vectors, the encoded form's recorded parameters,
/// and verification that refuses what it should without computing.
@Suite("Argon2id password hashes")
struct Argon2idTests {
    static let password = Array("password".utf8)
    static let salt = Array("somesalt".utf8)

    /// Vectors of the Argon2 reference implementation's tests (phc-winner-argon2
    /// `src/test.c`, repeated by independent implementations such as libar2): password
    /// "password", salt "somesalt", 32-byte hashes.
    @Test(
        "known answers of the reference implementation",
        arguments: [
            (
                256 as UInt32, 2 as UInt32, 1 as UInt32, "password", "somesalt",
                "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"
            ),
            (
                256, 2, 2, "password", "somesalt",
                "$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc"
            ),
            (
                65536, 2, 1, "password", "somesalt",
                "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
            ),
            (
                65536, 2, 1, "differentpassword", "somesalt",
                "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$C4TWUs9rDEvq7w3+J4umqA32aWKB1+DSiRuBfYxFj94"
            ),
            (
                65536, 2, 1, "password", "diffsalt",
                "$argon2id$v=19$m=65536,t=2,p=1$ZGlmZnNhbHQ$vfMrBczELrFdWP0ZsfhWsRPaHppYdP3MVEMIVlqoFBw"
            ),
        ])
    func knownAnswers(
        memory: UInt32, iterations: UInt32, lanes: UInt32, password: String, salt: String, expected: String
    )
        throws
    {
        let parameters = Argon2id.Parameters(
            memoryKiB: memory, iterations: iterations, parallelism: lanes, saltLength: 8)
        #expect(try Argon2id.hash(Array(password.utf8), salt: Array(salt.utf8), parameters: parameters) == expected)
        #expect(Argon2id.verify(Array(password.utf8), encoded: expected))
        #expect(!Argon2id.verify(Array((password + "!").utf8), encoded: expected))
    }

    @Test("the raw hash is the reference's bytes")
    func rawHash() throws {
        let raw = try Argon2id.rawHash(
            Self.password, salt: Self.salt,
            parameters: .init(memoryKiB: 65536, iterations: 2, parallelism: 1, saltLength: 8))
        #expect(
            raw.map { String(format: "%02x", $0) }.joined()
                == "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
    }

    @Test("a hash records its parameters and a 16-byte salt, and verifies")
    func roundTrip() throws {
        let parameters = Argon2id.Parameters(memoryKiB: 1024, iterations: 2, parallelism: 1)
        let salt = try SecureRandom.bytes(16)
        let encoded = try Argon2id.hash(Array("correct horse battery".utf8), salt: salt, parameters: parameters)
        #expect(encoded.hasPrefix("$argon2id$v=19$m=1024,t=2,p=1$"))
        #expect(Argon2id.parameters(of: encoded) == parameters)
        #expect(Argon2id.verify(Array("correct horse battery".utf8), encoded: encoded))
        #expect(!Argon2id.verify(Array("correct horse batterY".utf8), encoded: encoded))
        let other = try Argon2id.hash(
            Array("correct horse battery".utf8), salt: try SecureRandom.bytes(16), parameters: parameters)
        #expect(other != encoded, "a salt of its own, so equal passwords have different hashes")
    }

    @Test("the standard parameters are recorded as m=65536,t=3,p=1")
    func standard() throws {
        #expect(Argon2id.Parameters.standard.description == "m=65536,t=3,p=1")
        #expect(Argon2id.Parameters.standard.isAccepted)
    }

    @Test(
        "what is not an Argon2id hash in bounds is refused without computing",
        arguments: [
            "",
            "plain text",
            "$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHQ$iekCn0Y3spW+sCcFanM2xBT63UP2sghkUoHLIUpWRS8",
            "$argon2id$v=16$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$m=256,t=1000,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$m=256,t=2,p=64$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$t=2,m=256,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$m=256,t=2,p=1$c29t-XNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
            "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4$",
        ])
    func refused(encoded: String) {
        #expect(!Argon2id.verify(Self.password, encoded: encoded))
    }

    @Test("parameters out of bounds make no hash")
    func outOfBounds() {
        #expect(throws: Argon2id.Failure.self) {
            try Argon2id.hash(
                Self.password, salt: Self.salt,
                parameters: .init(memoryKiB: 4 << 20, iterations: 1, parallelism: 1, saltLength: 8))
        }
        #expect(throws: Argon2id.Failure.self) {
            try Argon2id.hash(
                Self.password, salt: Self.salt, parameters: .init(memoryKiB: 256, iterations: 1, parallelism: 1))
        }
    }
}
