import Foundation
import Glibc
import Synchronization

/// Failed sign-ins per handle and client address together and per client address, in
/// this server process's memory (``SignInLimits`` has the rules). Several server
/// processes each count their own; a restart forgets. The clock is a parameter.
///
/// Every attempt is counted as a failure when it begins (so attempts sent at once cannot
/// all slip under a threshold) and taken back when it succeeds. IPv6 addresses count by
/// their /64 network, since one host commonly holds a whole /64.
final class SignInThrottle: Sendable {
    /// What to do with an attempt.
    enum Decision: Sendable, Hashable {
        /// Go ahead after waiting `delay` seconds (0: at once).
        case proceed(delay: Double)
        /// Refuse it; the client may try again after `retryAfter` seconds.
        case refuse(retryAfter: Int64)
    }

    /// One bucket's count.
    struct Bucket: Sendable, Hashable {
        var failures: Int
        var lastFailure: Int64
    }

    /// A bucket's key: an address, or a handle key and an address.
    enum Key: Sendable, Hashable {
        case address(String)
        case pair(handle: String, address: String)
    }

    let limits: SignInLimits
    private let buckets = Mutex<[Key: Bucket]>([:])

    init(limits: SignInLimits) {
        self.limits = limits
    }

    /// Begins an attempt for `handle` (its caseless key) from `address` at `now`: counts it
    /// and says whether and after how long it may go on.
    func begin(handle: String, address: String, now: Int64) -> Decision {
        let network = Self.network(of: address)
        let keys: [(Key, slowAfter: Int, refuseAfter: Int)] = [
            (.pair(handle: handle, address: network), limits.pairSlowAfter, limits.pairRefuseAfter),
            (.address(network), limits.addressSlowAfter, limits.addressRefuseAfter),
        ]
        return buckets.withLock { buckets in
            var delay = 0.0
            var retryAfter: Int64 = 0
            for (key, slowAfter, refuseAfter) in keys {
                guard let bucket = buckets[key], now - bucket.lastFailure < limits.windowSeconds else { continue }
                if bucket.failures >= refuseAfter {
                    retryAfter = max(retryAfter, bucket.lastFailure + limits.lockoutSeconds - now)
                }
                // After a lockout, an attempt waits the longest delay (and refuses again if it fails).
                delay = max(delay, self.delay(failures: bucket.failures, slowAfter: slowAfter))
            }
            if retryAfter > 0 { return .refuse(retryAfter: retryAfter) }
            for (key, _, _) in keys {
                var bucket =
                    buckets[key].flatMap { now - $0.lastFailure < limits.windowSeconds ? $0 : nil }
                    ?? Bucket(failures: 0, lastFailure: now)
                bucket.failures += 1
                bucket.lastFailure = now
                buckets[key] = bucket
            }
            if buckets.count > limits.maximumBuckets { Self.prune(&buckets, now: now, limits: limits) }
            return .proceed(delay: delay)
        }
    }

    /// The attempt for `handle` from `address` succeeded: its pair bucket is cleared and
    /// the address's count of it taken back.
    func succeeded(handle: String, address: String) {
        let network = Self.network(of: address)
        buckets.withLock { buckets in
            buckets[.pair(handle: handle, address: network)] = nil
            if var bucket = buckets[.address(network)] {
                bucket.failures -= 1
                buckets[.address(network)] = bucket.failures > 0 ? bucket : nil
            }
        }
    }

    /// The attempt did not reach a verdict on the password (the server was busy): it
    /// counts neither way.
    func abandoned(handle: String, address: String) {
        let network = Self.network(of: address)
        buckets.withLock { buckets in
            for key in [Key.pair(handle: handle, address: network), .address(network)] {
                guard var bucket = buckets[key] else { continue }
                bucket.failures -= 1
                buckets[key] = bucket.failures > 0 ? bucket : nil
            }
        }
    }

    /// The buckets held now (for tests).
    var count: Int { buckets.withLock { $0.count } }

    /// The wait before an attempt after `failures` failures of a bucket slowed after `slowAfter`.
    func delay(failures: Int, slowAfter: Int) -> Double {
        guard failures >= slowAfter else { return 0 }
        let doublings = min(failures - slowAfter, 30)
        return min(limits.firstDelaySeconds * Double(1 << doublings), limits.maximumDelaySeconds)
    }

    /// Drops forgotten buckets, then the quietest ones until a tenth of the room is free.
    static func prune(_ buckets: inout [Key: Bucket], now: Int64, limits: SignInLimits) {
        buckets = buckets.filter { now - $0.value.lastFailure < limits.windowSeconds }
        let room = limits.maximumBuckets - limits.maximumBuckets / 10
        guard buckets.count > room else { return }
        let quietest = buckets.sorted { $0.value.lastFailure < $1.value.lastFailure }.prefix(buckets.count - room)
        for (key, _) in quietest { buckets[key] = nil }
    }

    /// The address an attempt counts under: an IPv4 address as it is (also when written as
    /// an IPv4-mapped IPv6 address), an IPv6 address by its /64 network
    /// (`2001:db8:1:2::/64`), anything else as it is.
    static func network(of address: String) -> String {
        var bytes = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let raw = withUnsafeBytes(of: bytes) { Array($0) }
        // An IPv4 client of a dual-stack listener (::ffff:192.0.2.1) counts as its IPv4 address.
        if raw[0..<10].allSatisfy({ $0 == 0 }) && raw[10] == 0xFF && raw[11] == 0xFF {
            return raw[12...].map(String.init).joined(separator: ".")
        }
        let groups = (0..<4).map { String(UInt16(raw[2 * $0]) << 8 | UInt16(raw[2 * $0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
