import Foundation
import LedgerCrypto

/// The random secrets browsers keep in cookies (a session's id, the sign-in form's
/// secret), and the form tokens derived from them.
///
/// A secret is 32 bytes from the system's secure random source, written in base64url
/// without padding (43 characters). A form token is HMAC-SHA256 of a fixed purpose text
/// under the secret, in base64url: only a page the server rendered for the holder of the
/// cookie can carry it, a page elsewhere cannot compute it (the cookie is `HttpOnly`), and
/// the token does not reveal the secret it came from. Nothing about it is stored.
public enum CookieSecret {
    /// What a form token is for; each purpose gives other tokens from the same secret.
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// The CSRF token of a signed-in session: hidden `csrf_token` field of every form,
        /// and `X-CSRF-Token` of the pages' own state-changing API requests.
        case session = "sleepledger session csrf v1"
        /// The token of the sign-in form, tied to the sign-in cookie (before any session).
        case signIn = "sleepledger sign-in csrf v1"
    }

    /// A new secret's text.
    public static func generate() throws(ServiceError) -> String {
        do {
            return base64URL(try SecureRandom.bytes(32))
        } catch {
            throw ServiceError(.internalFailure, error.description)
        }
    }

    /// The 32 bytes of a secret's text; `nil` for anything else.
    public static func bytes(of text: String) -> [UInt8]? {
        guard text.utf8.count == 43,
            text.utf8.allSatisfy({ byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            })
        else { return nil }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        guard let data = Data(base64Encoded: base64), data.count == 32 else { return nil }
        return Array(data)
    }

    /// The form token of the secret `text` for `purpose`; `nil` when `text` is no secret.
    public static func formToken(for text: String, purpose: Purpose) -> String? {
        bytes(of: text).map { base64URL(HMACSHA256.code(key: $0, message: Array(purpose.rawValue.utf8))) }
    }

    /// Whether `presented` is the form token of the secret `text` for `purpose`, compared
    /// in constant time.
    public static func isValid(_ presented: String?, for text: String?, purpose: Purpose) -> Bool {
        guard let presented, let text, let expected = formToken(for: text, purpose: purpose) else { return false }
        return ConstantTime.equals(Array(presented.utf8), Array(expected.utf8))
    }

    /// SHA-256 of a secret's bytes: what the database keeps of a session id.
    static func sha256(_ secret: [UInt8]) -> [UInt8] { SHA256Digest.digest(of: secret) }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
