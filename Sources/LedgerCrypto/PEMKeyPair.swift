import COpenSSL

/// A check of a PEM certificate and private key before a TLS server is given them, through
/// libcrypto: that the certificate parses, that the key parses without a passphrase, and
/// that the key belongs to the certificate (the first one, for a chain). It answers with
/// a ``Problem`` and never returns, keeps or prints key material.
public enum PEMKeyPair {
    /// What is wrong with a certificate and key.
    public enum Problem: Sendable, Hashable {
        /// The certificate is no PEM X.509 certificate.
        case unreadableCertificate
        /// The key is no PEM private key, or is encrypted with a passphrase.
        case unreadableKey
        /// The key does not belong to the certificate.
        case mismatch
    }

    /// The problem of `certificate` and `key` (PEM bytes), or `nil` when they make a pair.
    public static func problem(certificate: [UInt8], key: [UInt8]) -> Problem? {
        defer { ERR_clear_error() }
        return certificate.withUnsafeBytes { certificateBytes in
            key.withUnsafeBytes { keyBytes in
                guard let certificateIO = BIO_new_mem_buf(certificateBytes.baseAddress, Int32(certificateBytes.count))
                else { return .unreadableCertificate }
                defer { BIO_free(certificateIO) }
                guard let x509 = PEM_read_bio_X509(certificateIO, nil, nil, nil) else { return .unreadableCertificate }
                defer { X509_free(x509) }
                guard let keyIO = BIO_new_mem_buf(keyBytes.baseAddress, Int32(keyBytes.count)) else {
                    return .unreadableKey
                }
                defer { BIO_free(keyIO) }
                // No passphrase: an encrypted key fails here instead of asking a terminal.
                guard let privateKey = PEM_read_bio_PrivateKey(keyIO, nil, { _, _, _, _ in 0 }, nil) else {
                    return .unreadableKey
                }
                defer { EVP_PKEY_free(privateKey) }
                return X509_check_private_key(x509, privateKey) == 1 ? nil : .mismatch
            }
        }
    }
}
