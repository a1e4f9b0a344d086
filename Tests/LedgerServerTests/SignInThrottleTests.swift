import Foundation
import Testing

@testable import LedgerServer

/// The sign-in throttle as a pure function of attempts and the clock.
@Suite("Sign-in throttle")
struct SignInThrottleTests {
    /// Pairs slowed after 2 failures and refused at 4, addresses slowed after 5 and refused
    /// at 8; refusals last 60 s, buckets are forgotten 120 s after their last failure.
    static var limits: SignInLimits {
        var limits = SignInLimits()
        (limits.pairSlowAfter, limits.pairRefuseAfter) = (2, 4)
        (limits.addressSlowAfter, limits.addressRefuseAfter) = (5, 8)
        (limits.lockoutSeconds, limits.windowSeconds) = (60, 120)
        return limits
    }

    @Test("the defaults: 3/10 per handle and address, 10/50 per address, 1 s doubling to 8 s, 15 minutes")
    func defaults() {
        let limits = SignInLimits()
        let thresholds: [Int] = [
            limits.pairSlowAfter, limits.pairRefuseAfter, limits.addressSlowAfter, limits.addressRefuseAfter,
        ]
        #expect(thresholds == [3, 10, 10, 50])
        #expect(limits.firstDelaySeconds == 1 && limits.maximumDelaySeconds == 8)
        #expect(limits.lockoutSeconds == 900 && limits.windowSeconds == 900)
        #expect(limits.problems().isEmpty)
        let throttle = SignInThrottle(limits: limits)
        let delays: [Double] = (0...14).map { throttle.delay(failures: $0, slowAfter: 3) }
        #expect(delays == [0, 0, 0, 1, 2, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8])
    }

    @Test("one handle from one address: at once, then slowed, doubling, then refused until the lockout ends")
    func pair() {
        let throttle = SignInThrottle(limits: Self.limits)
        let decisions = (0..<5).map { _ in throttle.begin(handle: "anna", address: "192.0.2.1", now: 1000) }
        #expect(
            decisions == [
                .proceed(delay: 0), .proceed(delay: 0), .proceed(delay: 1), .proceed(delay: 2), .refuse(retryAfter: 60),
            ])
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1059) == .refuse(retryAfter: 1))
        // After the lockout one more attempt, slowed; failing, it is refused again at once.
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1060) == .proceed(delay: 4))
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1061) == .refuse(retryAfter: 59))
        // Forgotten once quiet for the window.
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1180) == .proceed(delay: 0))
    }

    @Test("a pair's failures hold neither the handle from elsewhere nor the address for other handles")
    func neverTheHandleAlone() {
        let throttle = SignInThrottle(limits: Self.limits)
        for _ in 0..<4 { _ = throttle.begin(handle: "anna", address: "192.0.2.1", now: 1000) }
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1000) == .refuse(retryAfter: 60))
        // Anna herself, from her own address, is not locked out by someone else's guesses.
        #expect(throttle.begin(handle: "anna", address: "198.51.100.7", now: 1000) == .proceed(delay: 0))
        // The guessing address may try another handle, but the address counts all of them.
        #expect(throttle.begin(handle: "ben", address: "192.0.2.1", now: 1000) == .proceed(delay: 0))
        #expect(throttle.begin(handle: "cleo", address: "192.0.2.1", now: 1000) == .proceed(delay: 1))
        #expect(throttle.begin(handle: "dan", address: "192.0.2.1", now: 1000) == .proceed(delay: 2))
        #expect(throttle.begin(handle: "eve", address: "192.0.2.1", now: 1000) == .proceed(delay: 4))
        #expect(throttle.begin(handle: "fred", address: "192.0.2.1", now: 1000) == .refuse(retryAfter: 60))
    }

    @Test("a success clears its pair and takes its own attempt back from the address; an abandoned one counts not")
    func success() {
        let throttle = SignInThrottle(limits: Self.limits)
        for _ in 0..<3 { _ = throttle.begin(handle: "anna", address: "192.0.2.1", now: 1000) }
        throttle.succeeded(handle: "anna", address: "192.0.2.1")
        #expect(throttle.begin(handle: "anna", address: "192.0.2.1", now: 1001) == .proceed(delay: 0))
        throttle.abandoned(handle: "anna", address: "192.0.2.1")
        // The address still holds the two failures before the success: two more, then slowed.
        for handle in ["b", "c"] { _ = throttle.begin(handle: handle, address: "192.0.2.1", now: 1002) }
        #expect(throttle.begin(handle: "d", address: "192.0.2.1", now: 1002) == .proceed(delay: 0))
        #expect(throttle.begin(handle: "e", address: "192.0.2.1", now: 1002) == .proceed(delay: 1))
    }

    @Test("the table is bounded: forgotten buckets go first, then the quietest")
    func bounded() {
        var limits = Self.limits
        limits.maximumBuckets = 100
        let throttle = SignInThrottle(limits: limits)
        for index in 0..<500 {
            _ = throttle.begin(
                handle: "h\(index)", address: "10.0.\(index / 250).\(index % 250)", now: 1000 + Int64(index))
        }
        #expect(throttle.count <= 100)
        // The newest are kept.
        #expect(throttle.begin(handle: "h499", address: "10.0.1.249", now: 1500) == .proceed(delay: 0))
        #expect(throttle.begin(handle: "h499", address: "10.0.1.249", now: 1500) == .proceed(delay: 1))
    }

    @Test(
        "addresses count as IPv4, IPv6 by their /64, IPv4-mapped IPv6 as IPv4",
        arguments: [
            ("192.0.2.1", "192.0.2.1"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
            ("2001:db8:1:2::ffff", "2001:db8:1:2::/64"), ("::ffff:192.0.2.1", "192.0.2.1"), ("unknown", "unknown"),
        ])
    func networks(address: String, network: String) {
        #expect(SignInThrottle.network(of: address) == network)
    }
}
