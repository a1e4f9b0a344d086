/// How failed sign-ins are slowed and then refused (``SignInThrottle``), counted per
/// handle and client address together and per client address, never per handle alone
/// (that would let anyone lock a person out).
///
/// Attempts up to a bucket's `slowAfter` failures go through at once; each attempt past
/// it waits first, ``firstDelaySeconds`` doubling per further failure up to
/// ``maximumDelaySeconds``; once a bucket holds `refuseAfter` failures, attempts are
/// refused with 429 until ``lockoutSeconds`` after its last failure. A bucket is
/// forgotten ``windowSeconds`` after its last failure, and a successful sign-in clears its
/// handle-and-address bucket.
public struct SignInLimits: Sendable, Hashable {
    /// Failures of one handle from one address before attempts are slowed. Default 3.
    public var pairSlowAfter: Int
    /// Failures of one handle from one address at which attempts are refused. Default 10.
    public var pairRefuseAfter: Int
    /// Failures from one address (any handles) before attempts are slowed. Default 10.
    public var addressSlowAfter: Int
    /// Failures from one address at which its attempts are refused. Default 50 (people
    /// behind one NAT share an address).
    public var addressRefuseAfter: Int
    /// The first delay, doubled per further failure. Default 1 s.
    public var firstDelaySeconds: Double
    /// The longest delay. Default 8 s.
    public var maximumDelaySeconds: Double
    /// How long a refusal lasts after the last failure. Default 900 s (15 minutes).
    public var lockoutSeconds: Int64
    /// How long after its last failure a bucket is forgotten. Default 900 s.
    public var windowSeconds: Int64
    /// The most buckets kept; past it, the longest quiet ones are dropped. Default 100 000
    /// (some 10 MB).
    public var maximumBuckets: Int

    /// The defaults.
    public init() {
        pairSlowAfter = 3
        pairRefuseAfter = 10
        addressSlowAfter = 10
        addressRefuseAfter = 50
        firstDelaySeconds = 1
        maximumDelaySeconds = 8
        lockoutSeconds = 900
        windowSeconds = 900
        maximumBuckets = 100_000
    }

    /// The problems that keep these limits from working; empty when they work.
    public func problems() -> [String] {
        var found: [String] = []
        if pairSlowAfter < 0 || addressSlowAfter < 0 { found.append("sign-in slow-down thresholds cannot be negative") }
        if pairRefuseAfter < 1 || addressRefuseAfter < 1 {
            found.append("sign-in refusal thresholds must be at least 1")
        }
        if pairRefuseAfter > addressRefuseAfter {
            found.append("the sign-in refusal threshold per address must be at least the one per handle and address")
        }
        if lockoutSeconds < 1 || windowSeconds < 1 { found.append("the sign-in lockout must be at least 1 second") }
        if firstDelaySeconds < 0 || maximumDelaySeconds < firstDelaySeconds {
            found.append("sign-in delays must satisfy 0 <= first <= maximum")
        }
        return found
    }
}
