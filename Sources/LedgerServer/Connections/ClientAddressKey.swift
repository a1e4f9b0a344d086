import Glibc

/// The key a client's connections and requests are counted under for the per-address
/// limits (issue 20, F1): an IPv4 address itself, an IPv6 address's /64 (one subscriber's
/// network: a single host can use any address of it), an IPv4-mapped IPv6 address as the
/// IPv4 address it maps.
enum ClientAddressKey {
    /// The key of a numeric address (`203.0.113.9`, `2001:db8:1:2::5`); anything that is
    /// not an address is its own key.
    static func key(_ address: String) -> String {
        var ipv6 = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &ipv6) == 1 else { return address }
        return key(ipv6)
    }

    /// The key of a socket address; `nil` for another family.
    static func key(_ address: UnsafePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return text(family: AF_INET, &ipv4, length: INET_ADDRSTRLEN)
        case AF_INET6:
            let ipv6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return key(ipv6)
        default:
            return nil
        }
    }

    private static func key(_ address: in6_addr) -> String {
        var bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            var ipv4 = in_addr()
            withUnsafeMutableBytes(of: &ipv4) { $0.copyBytes(from: bytes[12..<16]) }
            return text(family: AF_INET, &ipv4, length: INET_ADDRSTRLEN)
        }
        for index in 8..<16 { bytes[index] = 0 }
        var network = in6_addr()
        withUnsafeMutableBytes(of: &network) { $0.copyBytes(from: bytes) }
        return text(family: AF_INET6, &network, length: INET6_ADDRSTRLEN) + "/64"
    }

    private static func text(family: Int32, _ address: inout in_addr, length: Int32) -> String {
        withUnsafeBytes(of: &address) { text(family: family, $0, length: length) }
    }

    private static func text(family: Int32, _ address: inout in6_addr, length: Int32) -> String {
        withUnsafeBytes(of: &address) { text(family: family, $0, length: length) }
    }

    private static func text(family: Int32, _ address: UnsafeRawBufferPointer, length: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(length))
        guard inet_ntop(family, address.baseAddress, &buffer, socklen_t(length)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
