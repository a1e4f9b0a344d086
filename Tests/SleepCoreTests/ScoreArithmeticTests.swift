import SleepCore
import Testing

/// Spec section 0: round to 9 decimals before any truncation or threshold comparison.
@Suite struct ScoreArithmeticTests {
    @Test func roundingRemovesFloatNoise() {
        // 0.1 + 0.2 = 0.30000000000000004
        #expect(SpecArithmetic.rounded(0.1 + 0.2) == 0.3)
        // 5.000000000000001 h is 5 h
        #expect(SpecArithmetic.rounded(5.000000000000001) == 5)
        // 70 - (7 - 5.1) x 20 = 31.999999999999993 in floating point; truncates to 32
        let component = 70 - (7 - 5.1) * 20
        #expect(component < 32)
        #expect(SpecArithmetic.truncated(component) == 32)
        // a real fraction survives: 31.9999999 (7 decimals) still truncates to 31
        #expect(SpecArithmetic.truncated(31.9999999) == 31)
        #expect(SpecArithmetic.truncated(-0.5) == 0)
        #expect(SpecArithmetic.truncated(.nan) == 0)
        #expect(SpecArithmetic.truncated(.infinity) == 0)
    }

    @Test func hoursAreRoundedSeconds() {
        #expect(SpecArithmetic.hours(18_000) == 5)
        #expect(SpecArithmetic.hours(18_000.000000000004) == 5)
        #expect(SpecArithmetic.hours(360) == 0.1)
    }
}
