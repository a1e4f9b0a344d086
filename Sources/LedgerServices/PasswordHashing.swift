import Foundation
import LedgerCrypto
public import LedgerPasswordHash

/// Argon2id hashing shared by everything one process does: the parameters new hashes get
/// (``LedgerPasswordHash/Argon2id/Parameters/standard`` unless tests choose cheaper ones), and a
/// bound on hashes computed at once, since each holds its memory cost (64 MiB by default)
/// for its whole run. A hash that cannot start within ``waitSeconds`` is refused with
/// ``ServiceError/Kind/busy``.
public final class PasswordHashing: @unchecked Sendable {
    /// The parameters of new hashes.
    public let parameters: Argon2id.Parameters
    /// Hashes computed at once, at most. Default 2 (the cores of a small server).
    public let maximumConcurrent: Int
    /// Seconds a hash waits for a free slot before it is refused. Default 10.
    public let waitSeconds: Double
    private let condition = NSCondition()
    private var running = 0
    private let unknownUserLock = NSLock()
    private var unknownUserHash: String?

    /// Hashing with `parameters`, at most `maximumConcurrent` at once.
    public init(parameters: Argon2id.Parameters = .standard, maximumConcurrent: Int = 2, waitSeconds: Double = 10) {
        self.parameters = parameters
        self.maximumConcurrent = max(1, maximumConcurrent)
        self.waitSeconds = waitSeconds
    }

    /// The encoded hash of `password` (bytes from ``PasswordRules``) with a new random
    /// 16-byte salt.
    public func hash(_ password: [UInt8]) throws(ServiceError) -> String {
        try slot {
            let salt = try SecureRandom.bytes(parameters.saltLength)
            return try Argon2id.hash(password, salt: salt, parameters: parameters)
        }
    }

    /// Whether `password` matches the encoded hash `stored`. With no stored hash (no such
    /// user, or no password set) a hash of the same cost is still verified and `false`
    /// returned, so the time taken does not tell whether a handle exists.
    public func verify(_ password: [UInt8], against stored: String?) throws(ServiceError) -> Bool {
        try slot {
            guard let stored else {
                _ = Argon2id.verify(password, encoded: try unknownUser())
                return false
            }
            return Argon2id.verify(password, encoded: stored)
        }
    }

    /// A hash of a random password with the current parameters, made once.
    private func unknownUser() throws -> String {
        unknownUserLock.lock()
        defer { unknownUserLock.unlock() }
        if let unknownUserHash { return unknownUserHash }
        let made = try Argon2id.hash(
            try SecureRandom.bytes(16), salt: try SecureRandom.bytes(parameters.saltLength), parameters: parameters)
        unknownUserHash = made
        return made
    }

    /// Runs `body` in one of the slots, waiting up to ``waitSeconds`` for one.
    private func slot<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        let deadline = Date(timeIntervalSinceNow: waitSeconds)
        condition.lock()
        while running >= maximumConcurrent {
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw ServiceError(.busy, "too many sign-ins at once; try again in a moment")
            }
        }
        running += 1
        condition.unlock()
        defer {
            condition.lock()
            running -= 1
            condition.signal()
            condition.unlock()
        }
        do {
            return try body()
        } catch {
            throw ServiceError(.internalFailure, "password hashing failed: \(error)")
        }
    }
}
