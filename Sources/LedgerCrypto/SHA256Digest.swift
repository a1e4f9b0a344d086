import COpenSSL

/// An incremental SHA-256 over libcrypto's EVP interface, fed while the input streams.
public final class SHA256Digest {
    private let context: OpaquePointer?

    /// Starts an empty digest.
    public init() {
        context = EVP_MD_CTX_new()
        if let context {
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Finishes and returns the 32 bytes of the digest. Call once.
    public func finalize() -> [UInt8] {
        guard let context else { return [] }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// Finishes and returns the lowercase hex digest. Call once.
    public func finalizeHex() -> String {
        let hexDigits = Array("0123456789abcdef".utf8)
        let bytes = finalize()
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SHA-256 of a byte string.
    public static func digest(of bytes: some Sequence<UInt8>) -> [UInt8] {
        let digest = SHA256Digest()
        Array(bytes).withUnsafeBytes { digest.update($0) }
        return digest.finalize()
    }

    /// SHA-256 of a byte string, lowercase hex.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        let digest = SHA256Digest()
        Array(bytes).withUnsafeBytes { digest.update($0) }
        return digest.finalizeHex()
    }
}
