/// Spec section 0: every value that is truncated or compared with a threshold is first
/// rounded to 9 decimal places, so floating-point noise never flips a result.
public enum SpecArithmetic {
    private static let scale = 1e9

    /// `value` rounded to 9 decimal places (half away from zero).
    /// `5.000000000000001` becomes `5`; `31.999999999999996` becomes `32`.
    public static func rounded(_ value: Double) -> Double {
        guard value.isFinite, abs(value) < 9e6 else { return value }
        return (value * scale).rounded() / scale
    }

    /// `value` rounded to 9 decimal places, then truncated toward zero.
    /// Values beyond `Int` (or NaN) give 0 so input can never trap.
    public static func truncated(_ value: Double) -> Int {
        let r = rounded(value).rounded(.towardZero)
        guard r.isFinite, r > -9e18, r < 9e18 else { return 0 }
        return Int(r)
    }

    /// `seconds` as hours, rounded to 9 decimal places: the form in which durations are
    /// compared with hour thresholds.
    public static func hours(_ seconds: Double) -> Double { rounded(seconds / 3600) }
}
