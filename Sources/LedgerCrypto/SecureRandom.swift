import COpenSSL

/// Bytes from the system's secure random source, through libcrypto's `RAND_bytes`.
public enum SecureRandom {
    /// The error when the generator cannot deliver (not seeded, out of entropy).
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        /// `secure random source unavailable`.
        public var description: String { "the secure random source is unavailable" }
    }

    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(Unavailable) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else { throw Unavailable() }
        return bytes
    }
}
