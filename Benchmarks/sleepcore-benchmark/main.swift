// sleepcore-benchmark: how long SleepCore takes to turn one user's Apple-Watch-style
// history into nights and the six horizon summaries, against the time it takes to sort
// the same samples by start.
//
//     swift run -c release sleepcore-benchmark [--years 1,5,10] [--repetitions 21] [--seed 20260101]
//
// Single-threaded, deterministic (seeded generator), monotonic clock (ContinuousClock).
// The goal (issue): nights plus summaries take at most 10 times the sort.
// Results are recorded in docs/benchmarks.md.

import Foundation
import SleepCore
import SleepFixtures

/// Command-line settings of one benchmark run.
struct BenchmarkSettings: Sendable {
    /// History lengths to measure, in years. Default 1, 5 and 10.
    var years: [Int] = [1, 5, 10]
    /// Timed repetitions per size and input order (the median is reported). Default 21.
    var repetitions = 21
    /// Generator seed. Default 20260101.
    var seed: UInt64 = 20_260_101
    /// The last evening of every generated history. Default 2025-12-31.
    var lastEvening = LocalDate(year: 2025, month: 12, day: 31)

    static let usage = """
        usage: sleepcore-benchmark [--years N[,N...]] [--repetitions N] [--seed N]
          --years        history lengths in years (default 1,5,10)
          --repetitions  timed repetitions per size, median reported (default 21)
          --seed         generator seed (default 20260101)
        """

    /// Parses `arguments` (without the program name); `nil` on a usage error.
    static func parse(_ arguments: [String]) -> BenchmarkSettings? {
        var settings = BenchmarkSettings()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else { return nil }
            switch flag {
            case "--years":
                let years = value.split(separator: ",").compactMap { Int($0) }
                guard !years.isEmpty, years.allSatisfy({ $0 >= 1 && $0 <= 50 }) else { return nil }
                settings.years = years
            case "--repetitions":
                guard let count = Int(value), count >= 1 else { return nil }
                settings.repetitions = count
            case "--seed":
                guard let seed = UInt64(value) else { return nil }
                settings.seed = seed
            default:
                return nil
            }
        }
        return settings
    }
}

/// Milliseconds of a measured duration.
func milliseconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Right-aligns `text` in `width` columns.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

/// `value` with `decimals` digits after the point.
func fixed(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Median timings of one history size, in milliseconds.
struct SizeResult {
    /// History length in years.
    var years: Int
    /// Generated samples.
    var samples: Int
    /// Nights and naps NightBuilder made of them.
    var nights: Int
    var naps: Int
    /// Medians of (a) copy + sort, (b) NightBuilder, (c) summaries and (d) = (b) + (c).
    var sortMilliseconds: Double
    var nightsMilliseconds: Double
    var summariesMilliseconds: Double
    var totalMilliseconds: Double
    /// Fastest repetitions of (a) and (d).
    var fastestSortMilliseconds: Double
    var fastestTotalMilliseconds: Double
    /// (nights + summaries) / sort, from the medians.
    var ratio: Double { totalMilliseconds / sortMilliseconds }
    /// (nights + summaries) / sort, from the fastest repetitions (less sensitive to noise).
    var fastestRatio: Double { fastestTotalMilliseconds / fastestSortMilliseconds }
}

/// One user's generated history of `years` calendar years ending on the last evening.
func history(years: Int, settings: BenchmarkSettings) -> (samples: [SleepSample], zone: String) {
    let generator = SleepStreamGenerator(seed: settings.seed)
    let first = LocalDate(year: settings.lastEvening.year - years + 1, month: 1, day: 1)
    return (
        generator.samples(forUser: 0, from: first, through: settings.lastEvening),
        generator.configuration.homeTimeZoneIdentifier
    )
}

/// Measures one history, in the order given.
func measure(years: Int, samples: [SleepSample], zone: String, settings: BenchmarkSettings)
    -> SizeResult
{
    let clock = ContinuousClock()
    let builder = NightBuilder()

    // Untimed warm-up: fills the zone caches and pages in the code.
    let warmUp = builder.build(from: samples, userTimeZoneIdentifier: zone)
    guard let lastWakeDay = warmUp.nights.map(\.wakeDay.daysSinceEpoch).max() else {
        return SizeResult(
            years: years, samples: samples.count, nights: 0, naps: warmUp.naps.count,
            sortMilliseconds: 0, nightsMilliseconds: 0, summariesMilliseconds: 0,
            totalMilliseconds: 0, fastestSortMilliseconds: 0, fastestTotalMilliseconds: 0)
    }
    let asOf = LocalDate(daysSinceEpoch: lastWakeDay + 1)
    _ = SummaryBuilder(nights: warmUp.nights).summaries(asOf: asOf)

    var sortTimes: [Double] = []
    var nightTimes: [Double] = []
    var summaryTimes: [Double] = []
    var totalTimes: [Double] = []
    var checksum = 0
    for _ in 0..<settings.repetitions {
        // (a) Baseline: copy the samples and sort the copy by start.
        var sorted: [SleepSample] = []
        let sortTime = clock.measure {
            var copy = samples
            copy.sort { $0.start < $1.start }
            sorted = copy
        }
        checksum &+= Int(truncatingIfNeeded: sorted[sorted.count / 2].start)

        // (b) Nights and naps from the same samples.
        var result = NightBuildResult()
        let nightTime = clock.measure {
            result = builder.build(from: samples, userTimeZoneIdentifier: zone)
        }

        // (c) All six horizon summaries from those nights, as of the day after the last.
        var summaries: [Summary] = []
        let summaryTime = clock.measure {
            summaries = SummaryBuilder(nights: result.nights).summaries(asOf: asOf)
        }
        checksum &+= summaries.reduce(0) { $0 &+ Int($1.debt.debtSeconds) } &+ result.naps.count

        sortTimes.append(milliseconds(sortTime))
        nightTimes.append(milliseconds(nightTime))
        summaryTimes.append(milliseconds(summaryTime))
        totalTimes.append(milliseconds(nightTime + summaryTime))
    }
    // Keeps the optimiser from discarding the work; never true for real data.
    if checksum == 42 { print("checksum \(checksum)") }

    return SizeResult(
        years: years, samples: samples.count, nights: warmUp.nights.count, naps: warmUp.naps.count,
        sortMilliseconds: median(sortTimes), nightsMilliseconds: median(nightTimes),
        summariesMilliseconds: median(summaryTimes), totalMilliseconds: median(totalTimes),
        fastestSortMilliseconds: sortTimes.min() ?? 0,
        fastestTotalMilliseconds: totalTimes.min() ?? 0)
}

guard let settings = BenchmarkSettings.parse(Array(CommandLine.arguments.dropFirst())) else {
    print(BenchmarkSettings.usage)
    exit(64)
}

let runClock = ContinuousClock()
let runStart = runClock.now
print(
    "sleepcore-benchmark: seed \(settings.seed), \(settings.repetitions) repetitions per size, median ms"
)
print("one user, Europe/Berlin, histories ending on the evening of \(settings.lastEvening)")
print()

var inOrder: [SizeResult] = []
var shuffled: [SizeResult] = []
for years in settings.years {
    let (samples, zone) = history(years: years, settings: settings)
    inOrder.append(measure(years: years, samples: samples, zone: zone, settings: settings))
    var random = SplitMix64(seed: settings.seed ^ UInt64(years))
    let mixed = samples.shuffled(using: &random)
    shuffled.append(measure(years: years, samples: mixed, zone: zone, settings: settings))
}

let header = [
    pad("years", 5), pad("samples", 8), pad("nights", 6), pad("naps", 5),
    pad("(a) sort", 9), pad("(b) nights", 10), pad("(c) summ.", 9), pad("(d) b+c", 9),
    pad("d/a", 6), pad("min a", 7), pad("min d", 7), pad("min d/a", 7), pad("ns/sample d", 11),
]
/// Prints one table of results.
func printTable(_ title: String, _ results: [SizeResult]) {
    print(title)
    print(header.joined(separator: "  "))
    for result in results {
        let row = [
            pad(String(result.years), 5), pad(String(result.samples), 8),
            pad(String(result.nights), 6),
            pad(String(result.naps), 5),
            pad(fixed(result.sortMilliseconds, 2), 9), pad(fixed(result.nightsMilliseconds, 2), 10),
            pad(fixed(result.summariesMilliseconds, 2), 9),
            pad(fixed(result.totalMilliseconds, 2), 9),
            pad(fixed(result.ratio, 2), 6),
            pad(fixed(result.fastestSortMilliseconds, 2), 7),
            pad(fixed(result.fastestTotalMilliseconds, 2), 7),
            pad(fixed(result.fastestRatio, 2), 7),
            pad(fixed(result.totalMilliseconds * 1e6 / Double(max(1, result.samples)), 0), 11),
        ]
        print(row.joined(separator: "  "))
    }
    print()
}

printTable(
    "samples in generation order (night by night; within a night, source by source):", inOrder)
printTable("the same samples shuffled (deterministic):", shuffled)
print("(a) copy + sort by start, (b) NightBuilder, (c) SummaryBuilder + six horizons, (d) = b + c;")
print("min a / min d: fastest repetition; min d/a: their ratio; ns/sample d: median (d) per sample")
let worst = (inOrder + shuffled).map(\.ratio).max() ?? 0
print("goal: (b+c)/(a) <= 10; worst ratio \(fixed(worst, 2)): \(worst <= 10 ? "met" : "NOT met")")
print("run time \(fixed(milliseconds(runClock.now - runStart) / 1000, 1)) s")
