import Foundation
import SleepCore

/// The instant a wall clock in `zone` reads `text` ("YYYY-MM-DD HH:MM" or
/// "YYYY-MM-DD HH:MM:SS"), computed with Foundation's Calendar so tests do not reuse the
/// library's own offset arithmetic. Non-existent or malformed text gives 0, which no
/// test expects.
func instant(_ text: String, _ zone: String = "UTC") -> Int64 {
    let parts = text.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == ":" }).compactMap { Int($0) }
    guard parts.count >= 5, let timeZone = TimeZone(identifier: zone) else { return 0 }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let components = DateComponents(
        year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
        second: parts.count > 5 ? parts[5] : 0)
    guard let date = calendar.date(from: components) else { return 0 }
    return Int64(date.timeIntervalSince1970)
}

/// A sample from local wall-clock texts in `zone` (UTC unless given).
func sample(
    _ source: String, _ start: String, _ end: String, _ stage: SleepStage, zone: String = "UTC",
    timeZoneIdentifier: String? = nil
) -> SleepSample {
    SleepSample(
        source: source, start: instant(start, zone), end: instant(end, zone), stage: stage,
        timeZoneIdentifier: timeZoneIdentifier)
}

/// Builds with the default rules and, unless a test says otherwise, the user zone UTC.
func build(_ samples: [SleepSample], userZone: String? = "UTC", rules: NightRules = NightRules()) -> NightBuildResult {
    NightBuilder(rules: rules).build(from: samples, userTimeZoneIdentifier: userZone)
}

let hour: Int64 = 3600
let minute: Int64 = 60
