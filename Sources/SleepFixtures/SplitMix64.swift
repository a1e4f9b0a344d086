/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, fast, seedable generator whose
/// sequence is the same on every platform and toolchain, unlike the system generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// Creates a generator from several values mixed into one seed.
    public init(mixing parts: UInt64...) {
        var mixed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for part in parts {
            var mixer = SplitMix64(seed: mixed ^ part)
            mixed = mixer.next()
        }
        state = mixed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in `0 ..< 1`.
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `true` with the given probability.
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// A uniform integer in `range` (which must not be empty).
    public mutating func integer(in range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        return width == 0 ? Int64(bitPattern: next()) : range.lowerBound + Int64(next() % width)
    }

    /// An approximately normal number (Irwin-Hall sum of four uniforms), mean 0,
    /// standard deviation 1, always within ±3.5.
    public mutating func normal() -> Double {
        (unit() + unit() + unit() + unit() - 2.0) * 1.7320508075688772
    }
}
