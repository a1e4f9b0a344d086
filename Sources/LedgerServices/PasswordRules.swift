import Foundation

/// What a sign-in password must be, and the bytes that are hashed.
///
/// A password is normalized to Unicode NFKC first (NIST SP 800-63B, 5.1.1.2), so that the
/// same characters typed on different systems (a precomposed `é` or `e` and a combining
/// accent, a full-width letter) give the same bytes. Then: at least 10 characters,
/// counting each Unicode code point as one; at most 1024 bytes in UTF-8 (a bound on the
/// work a sign-in costs, far above any passphrase); no control characters (they cannot be
/// typed in a form, nor read as one line). No composition rules: length is what counts.
public enum PasswordRules {
    /// The fewest characters (Unicode code points, after NFKC) of a new password.
    public static let minimumCharacters = 10
    /// The most bytes (UTF-8, after NFKC) of a password.
    public static let maximumBytes = 1024

    /// The bytes to hash for a new password, or ``ServiceError/Kind/invalidInput`` saying
    /// which rule it breaks (never echoing the password).
    public static func newPassword(_ password: String) throws(ServiceError) -> [UInt8] {
        guard let bytes = normalized(password) else {
            throw ServiceError(.invalidInput, "a password holds at most \(maximumBytes) bytes")
        }
        guard !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError(.invalidInput, "a password cannot hold control characters (tabs, line breaks)")
        }
        let characters = String(decoding: bytes, as: UTF8.self).unicodeScalars.count
        guard characters >= minimumCharacters else {
            throw ServiceError(
                .invalidInput,
                "a password needs at least \(minimumCharacters) characters (this one has \(characters)); "
                    + "a few unrelated words make a good one")
        }
        return bytes
    }

    /// The bytes to compare for a presented password (NFKC, UTF-8); `nil` when it is over
    /// ``maximumBytes`` and so matches no stored password.
    public static func normalized(_ password: String) -> [UInt8]? {
        // NFKC grows text at most 18-fold, and never shrinks it below a quarter: bounded work.
        guard password.utf8.count <= 4 * maximumBytes else { return nil }
        let bytes = Array(password.precomposedStringWithCompatibilityMapping.utf8)
        return bytes.count <= maximumBytes ? bytes : nil
    }
}
