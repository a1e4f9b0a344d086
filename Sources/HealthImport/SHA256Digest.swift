import COpenSSL

/// An incremental SHA-256 over libcrypto's EVP interface, fed while the input streams.
final class SHA256Digest {
    private let context: OpaquePointer?

    init() {
        context = EVP_MD_CTX_new()
        if let context {
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Finishes and returns the lowercase hex digest. Call once.
    func finalizeHex() -> String {
        guard let context else { return "" }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        let hexDigits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(Int(length) * 2)
        for byte in output.prefix(Int(length)) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SHA-256 of a byte string, lowercase hex.
    static func hex(of bytes: some Sequence<UInt8>) -> String {
        let digest = SHA256Digest()
        Array(bytes).withUnsafeBytes { digest.update($0) }
        return digest.finalizeHex()
    }
}
