import COpenSSL

/// HMAC-SHA256 (RFC 2104) through libcrypto's one-shot `HMAC`: a code that only the
/// holder of the key can compute, such as a form's CSRF token derived from the secret of
/// the session that shows the form.
public enum HMACSHA256 {
    /// The 32-byte code of `message` under `key`.
    public static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let made = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &output,
                    &length)
            }
        }
        return made == nil ? [] : Array(output.prefix(Int(length)))
    }
}
