import Foundation
import Glibc
import LedgerCrypto
public import LedgerServices

/// The main listener's certificate and private key, read once at start from the files
/// `--tls-cert` and `--tls-key` name and checked as a pair (``PEMKeyPair``) before
/// libmicrohttpd is given them. Every message names the files and the reason, never
/// their content; printing the value shows sizes only.
public struct TLSCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Files larger than this are refused: a certificate chain and a key are a few KiB.
    public static let maximumFileBytes = 1 << 20

    /// The certificate (chain) as PEM, NUL-terminated for libmicrohttpd.
    let certificatePEM: [CChar]
    /// The private key as PEM, NUL-terminated for libmicrohttpd.
    let keyPEM: [CChar]

    /// Reads and checks the certificate at `certificatePath` and the key at `keyPath`:
    /// ``ServiceError/Kind/unreadableInput`` when a file is missing or unreadable,
    /// ``ServiceError/Kind/invalidInput`` when it is no PEM certificate or unencrypted
    /// key, or when the key does not belong to the certificate.
    public static func load(certificatePath: String, keyPath: String) throws(ServiceError) -> TLSCredentials {
        let certificate = try read(certificatePath, what: "certificate")
        let key = try read(keyPath, what: "key")
        switch PEMKeyPair.problem(certificate: certificate, key: key) {
        case .unreadableCertificate:
            throw ServiceError(.invalidInput, "the TLS certificate \(certificatePath) is no PEM certificate")
        case .unreadableKey:
            throw ServiceError(
                .invalidInput,
                "the TLS key \(keyPath) is no PEM private key, or is encrypted (a passphrase cannot be given)")
        case .mismatch:
            throw ServiceError(
                .invalidInput, "the TLS key \(keyPath) does not belong to the certificate \(certificatePath)")
        case nil:
            return TLSCredentials(
                certificatePEM: certificate.map { CChar(bitPattern: $0) } + [0],
                keyPEM: key.map { CChar(bitPattern: $0) } + [0])
        }
    }

    /// The bytes of `path`, or a ``ServiceError`` naming the file and the reason.
    static func read(_ path: String, what: String) throws(ServiceError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ServiceError(
                .unreadableInput, "cannot read the TLS \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw ServiceError(
                    .unreadableInput, "cannot read the TLS \(what) \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            guard bytes.count <= maximumFileBytes else {
                throw ServiceError(.invalidInput, "the TLS \(what) \(path) is larger than 1 MiB")
            }
        }
        guard !bytes.isEmpty else { throw ServiceError(.invalidInput, "the TLS \(what) \(path) is empty") }
        return bytes
    }

    /// Sizes only: the key never reaches a log.
    public var description: String {
        "TLSCredentials(certificate: \(certificatePEM.count - 1) bytes, key: \(keyPEM.count - 1) bytes)"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// Shows nothing of the content to `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
