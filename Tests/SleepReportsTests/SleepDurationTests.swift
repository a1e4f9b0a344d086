import SleepReports
import Testing

/// Durations as docs/cli.md writes them: `8h`, `7h30m`, `450m`, `7.5h` or `90s` in, `7h 25m`
/// out (rounded to the minute).
@Suite("SleepDuration")
struct SleepDurationTests {
    @Test(arguments: [
        ("8h", Int64(28_800)), ("7h30m", 27_000), ("450m", 27_000), ("7.5h", 27_000), ("7h 25m", 26_700),
        ("90s", 90), ("0.5h", 1_800), ("1h1m1s", 3_661),
    ])
    func parses(text: String, seconds: Int64) {
        #expect(SleepDuration.parse(text) == seconds)
    }

    @Test(arguments: ["", "8", "h", "8x", "8hh", "7h7h", "-1h", "abc", "49h", "8h30", " ", "1..5h"])
    func rejects(text: String) {
        #expect(SleepDuration.parse(text) == nil)
    }

    @Test(arguments: [
        (Int64(26_700), "7h 25m"), (28_800, "8h"), (1_740, "29m"), (-3_600, "-1h"), (29, "0m"), (30, "1m"),
        (3_570, "1h"), (-5_400, "-1h 30m"), (0, "0m"), (90_000, "25h"),
    ])
    func formats(seconds: Int64, text: String) {
        #expect(SleepDuration.format(seconds: seconds) == text)
    }
}
