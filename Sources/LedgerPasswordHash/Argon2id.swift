import CArgon2
import Foundation

/// Argon2id password hashes (RFC 9106) through libargon2, the reference implementation
/// (Debian `libargon2-dev`), in its standard encoded form, which records the parameters
/// and the salt beside the hash:
/// `$argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>` (salt and hash in base64 without padding).
///
/// Verification recomputes the hash with the recorded parameters and salt, and libargon2
/// compares the two in constant time (`argon2_compare`). Encoded hashes whose parameters
/// are outside ``Parameters/acceptedRange`` are refused before any work, so a damaged
/// stored value cannot make the server allocate gigabytes.
public enum Argon2id {
    /// The cost of one hash: memory, passes over it, lanes; and the lengths of salt and hash.
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
        /// Memory in KiB (`m`).
        public var memoryKiB: UInt32
        /// Passes over the memory (`t`).
        public var iterations: UInt32
        /// Lanes, computed by as many threads (`p`).
        public var parallelism: UInt32
        /// Salt bytes. Default 16 (RFC 9106 recommends 16).
        public var saltLength: Int
        /// Hash bytes. Default 32.
        public var hashLength: Int

        /// Parameters with a 16-byte salt and a 32-byte hash.
        public init(
            memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32, saltLength: Int = 16, hashLength: Int = 32
        ) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
            self.saltLength = saltLength
            self.hashLength = hashLength
        }

        /// SleepLedger's: 64 MiB, 3 passes, 1 lane (RFC 9106's second recommended option
        /// with one lane, since a 2-core server hashes sign-ins side by side, not one hash
        /// on both cores). docs/operations.md gives the measured time.
        public static let standard = Parameters(memoryKiB: 64 << 10, iterations: 3, parallelism: 1)

        /// The most memory a stored hash may ask for: 1 GiB.
        public static let maximumMemoryKiB: UInt32 = 1 << 20
        /// The most passes a stored hash may ask for.
        public static let maximumIterations: UInt32 = 64
        /// The most lanes a stored hash may ask for.
        public static let maximumParallelism: UInt32 = 16

        /// Whether the parameters are within what libargon2 accepts and SleepLedger's
        /// bounds: memory 8p KiB to 1 GiB, 1-64 passes, 1-16 lanes, salt 8-64 bytes, hash
        /// 16-64 bytes.
        public var isAccepted: Bool {
            (1...Self.maximumParallelism).contains(parallelism)
                && (8 * parallelism...Self.maximumMemoryKiB).contains(memoryKiB)
                && (1...Self.maximumIterations).contains(iterations) && (8...64).contains(saltLength)
                && (16...64).contains(hashLength)
        }

        /// `m=65536,t=3,p=1`, as the encoded form writes them.
        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
    }

    /// Why a hash could not be made: parameters out of bounds, or libargon2's own error
    /// (out of memory, typically). Never holds the password.
    public struct Failure: Error, CustomStringConvertible, Sendable, Hashable {
        /// What went wrong.
        public var description: String
    }

    /// The encoded hash of `password` with `salt` (of ``Parameters/saltLength`` bytes)
    /// under `parameters`.
    public static func hash(_ password: [UInt8], salt: [UInt8], parameters: Parameters) throws(Failure) -> String {
        guard parameters.isAccepted, salt.count == parameters.saltLength else {
            throw Failure(description: "Argon2id parameters out of bounds: \(parameters), salt of \(salt.count) bytes")
        }
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count),
            UInt32(parameters.hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let result = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_encoded(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism, passwordBytes.baseAddress,
                    passwordBytes.count, saltBytes.baseAddress, saltBytes.count, parameters.hashLength, &encoded,
                    length)
            }
        }
        guard result == ARGON2_OK.rawValue else {
            throw Failure(description: "Argon2id failed: " + String(cString: argon2_error_message(result)))
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The raw hash bytes of `password` with `salt` under `parameters` (no encoding): for
    /// known-answer tests against published vectors.
    public static func rawHash(_ password: [UInt8], salt: [UInt8], parameters: Parameters) throws(Failure) -> [UInt8] {
        guard parameters.isAccepted, salt.count >= 8 else {
            throw Failure(description: "Argon2id parameters out of bounds: \(parameters)")
        }
        var output = [UInt8](repeating: 0, count: parameters.hashLength)
        let result = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_raw(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism, passwordBytes.baseAddress,
                    passwordBytes.count, saltBytes.baseAddress, saltBytes.count, &output, output.count)
            }
        }
        guard result == ARGON2_OK.rawValue else {
            throw Failure(description: "Argon2id failed: " + String(cString: argon2_error_message(result)))
        }
        return output
    }

    /// Whether `password` matches the encoded hash `encoded` (libargon2 compares in
    /// constant time). `false` as well for a hash that is not Argon2id version 19 or whose
    /// parameters are out of bounds; nothing is computed then.
    public static func verify(_ password: [UInt8], encoded: String) -> Bool {
        guard let parameters = parameters(of: encoded), parameters.isAccepted else { return false }
        return password.withUnsafeBytes { passwordBytes in
            argon2id_verify(encoded, passwordBytes.baseAddress, passwordBytes.count) == ARGON2_OK.rawValue
        }
    }

    /// The parameters recorded in an encoded Argon2id hash (version 19); `nil` for any
    /// other text. Salt and hash lengths are those of their base64.
    public static func parameters(of encoded: String) -> Parameters? {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        let costs = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard costs.count == 3, costs[0].hasPrefix("m="), costs[1].hasPrefix("t="), costs[2].hasPrefix("p="),
            let memory = UInt32(costs[0].dropFirst(2)), let iterations = UInt32(costs[1].dropFirst(2)),
            let parallelism = UInt32(costs[2].dropFirst(2))
        else { return nil }
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        guard fields[4].utf8.allSatisfy(base64.contains), fields[5].utf8.allSatisfy(base64.contains) else {
            return nil
        }
        return Parameters(
            memoryKiB: memory, iterations: iterations, parallelism: parallelism,
            saltLength: fields[4].utf8.count * 6 / 8, hashLength: fields[5].utf8.count * 6 / 8)
    }
}
