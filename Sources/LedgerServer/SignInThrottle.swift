import Foundation
import Glibc
import Synchronization

/// Failed sign-ins per handle and client address together and per client address, in
/// this server process's memory (``SignInLimits`` has the rules). Several server
/// processes each count their own; a restart forgets. The clock is a parameter.
///
/// Checks of a signed-in person's current password (a change of password) count the same
/// way per account and per client address: the account's bucket has the thresholds of a
/// handle and address, the address's bucket is the one sign-ins count in. Only a holder of
/// the account's session can make such checks, so counting per account locks no outsider
/// in; its owner ends a thief's sessions by signing out everywhere else.
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

    /// A bucket's key: an address, a handle key and an address, or an account whose
    /// current password is checked.
    enum Key: Sendable, Hashable {
        case address(String)
        case pair(handle: String, address: String)
        case account(Int64)
    }

    /// The buckets one attempt counts in, with their thresholds.
    private typealias Buckets = [(key: Key, slowAfter: Int, refuseAfter: Int)]

    let limits: SignInLimits
    private let buckets = Mutex<[Key: Bucket]>([:])

    init(limits: SignInLimits) {
        self.limits = limits
    }

    /// Begins an attempt for `handle` (its caseless key) from `address` at `now`: counts it
    /// and says whether and after how long it may go on.
    func begin(handle: String, address: String, now: Int64) -> Decision {
        begin(signInBuckets(handle: handle, address: address), now: now)
    }

    /// Begins a check of the current password of account `userID` from `address` at `now`,
    /// as ``begin(handle:address:now:)`` begins a sign-in.
    func beginPasswordCheck(userID: Int64, address: String, now: Int64) -> Decision {
        begin(passwordCheckBuckets(userID: userID, address: address), now: now)
    }

    /// The check of account `userID`'s current password from `address` succeeded: the
    /// account's bucket is cleared and the address's count of it taken back.
    func passwordCheckSucceeded(userID: Int64, address: String) {
        succeeded(passwordCheckBuckets(userID: userID, address: address))
    }

    /// The check of account `userID`'s current password reached no verdict: it counts
    /// neither way.
    func passwordCheckAbandoned(userID: Int64, address: String) {
        abandoned(passwordCheckBuckets(userID: userID, address: address))
    }

    private func signInBuckets(handle: String, address: String) -> Buckets {
        let network = Self.network(of: address)
        return [
            (.pair(handle: handle, address: network), limits.pairSlowAfter, limits.pairRefuseAfter),
            (.address(network), limits.addressSlowAfter, limits.addressRefuseAfter),
        ]
    }

    private func passwordCheckBuckets(userID: Int64, address: String) -> Buckets {
        [
            (.account(userID), limits.pairSlowAfter, limits.pairRefuseAfter),
            (.address(Self.network(of: address)), limits.addressSlowAfter, limits.addressRefuseAfter),
        ]
    }

    private func begin(_ keys: Buckets, now: Int64) -> Decision {
        buckets.withLock { buckets in
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
        succeeded(signInBuckets(handle: handle, address: address))
    }

    /// Clears the first of `keys` (the attempt's own) and takes one failure back from the others.
    private func succeeded(_ keys: Buckets) {
        buckets.withLock { buckets in
            for (index, entry) in keys.enumerated() {
                guard index > 0 else {
                    buckets[entry.key] = nil
                    continue
                }
                guard var bucket = buckets[entry.key] else { continue }
                bucket.failures -= 1
                buckets[entry.key] = bucket.failures > 0 ? bucket : nil
            }
        }
    }

    /// The attempt did not reach a verdict on the password (the server was busy): it
    /// counts neither way.
    func abandoned(handle: String, address: String) {
        abandoned(signInBuckets(handle: handle, address: address))
    }

    /// Takes one failure back from each of `keys`.
    private func abandoned(_ keys: Buckets) {
        buckets.withLock { buckets in
            for entry in keys {
                guard var bucket = buckets[entry.key] else { continue }
                bucket.failures -= 1
                buckets[entry.key] = bucket.failures > 0 ? bucket : nil
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
