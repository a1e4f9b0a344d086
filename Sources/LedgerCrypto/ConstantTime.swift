import COpenSSL

/// Comparisons whose time does not depend on where two secrets differ
/// (libcrypto's `CRYPTO_memcmp`), so a client cannot guess a stored hash byte by byte.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; different lengths are unequal (the length
    /// of a hash is not secret).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { first in
            b.withUnsafeBytes { second in CRYPTO_memcmp(first.baseAddress, second.baseAddress, a.count) == 0 }
        }
    }
}
