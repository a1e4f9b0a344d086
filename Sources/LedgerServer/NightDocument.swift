import Foundation
import SleepCore

/// One stored night as `GET /api/v1/nights` serves it, in the conventions of
/// docs/summary-json.md: durations in whole seconds, instants in seconds since 1970 UTC,
/// local times as `YYYY-MM-DDTHH:MM:SS` in the night's own zone (`time_zone`).
struct NightDocument: Encodable {
    var night: Night
    /// How far the night can be trusted (docs/sleep-rules.md, "Confidence per night"); `nil`
    /// for a night stored before the rollup first assessed it, and then left out.
    var confidence: NightConfidence?

    enum CodingKeys: String, CodingKey {
        case wakeDay = "wake_day"
        case timeZone = "time_zone"
        case bedtime, onset, wake
        case bedtimeLocal = "bedtime_local"
        case onsetLocal = "onset_local"
        case wakeLocal = "wake_local"
        case asleepSeconds = "asleep_seconds"
        case timeInBedSeconds = "time_in_bed_seconds"
        case awakeSeconds = "awake_seconds"
        case wakeUps = "wake_ups"
        case latencySeconds = "latency_seconds"
        case deepSeconds = "deep_seconds"
        case remSeconds = "rem_seconds"
        case coreSeconds = "core_seconds"
        case unspecifiedSeconds = "unspecified_seconds"
        case efficiency
        case hasStageData = "has_stage_data"
        case source
        case fragmentCount = "fragment_count"
        case setAsideSources = "set_aside_sources"
        case asleepIntervals = "asleep_intervals"
        case stageSegments = "stage_segments"
        case confidence
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let zone = night.timeZoneIdentifier
        try container.encode(night.wakeDay, forKey: .wakeDay)
        try container.encode(zone, forKey: .timeZone)
        try container.encode(night.bedtime, forKey: .bedtime)
        try container.encode(night.onset, forKey: .onset)
        try container.encode(night.wake, forKey: .wake)
        try container.encode(Self.local(night.bedtime, zone), forKey: .bedtimeLocal)
        try container.encode(Self.local(night.onset, zone), forKey: .onsetLocal)
        try container.encode(Self.local(night.wake, zone), forKey: .wakeLocal)
        try container.encode(night.asleepSeconds, forKey: .asleepSeconds)
        try container.encode(night.timeInBedSeconds, forKey: .timeInBedSeconds)
        try container.encode(night.awakeSeconds, forKey: .awakeSeconds)
        try container.encode(night.wakeUps, forKey: .wakeUps)
        try container.encodeIfPresent(night.latencySeconds, forKey: .latencySeconds)
        try container.encode(night.stages.deep, forKey: .deepSeconds)
        try container.encode(night.stages.rem, forKey: .remSeconds)
        try container.encode(night.stages.core, forKey: .coreSeconds)
        try container.encode(night.stages.unspecified, forKey: .unspecifiedSeconds)
        try container.encode(night.efficiency, forKey: .efficiency)
        try container.encode(night.hasStageData, forKey: .hasStageData)
        try container.encode(night.source, forKey: .source)
        try container.encode(night.fragmentCount, forKey: .fragmentCount)
        try container.encode(night.setAsideSources, forKey: .setAsideSources)
        try container.encode(night.asleepIntervals, forKey: .asleepIntervals)
        try container.encode(night.stageSegments, forKey: .stageSegments)
        try container.encodeIfPresent(confidence, forKey: .confidence)
    }

    /// `YYYY-MM-DDTHH:MM:SS`: the instant's wall-clock time in `zone` (UTC when unknown).
    static func local(_ instant: Int64, _ zone: String) -> String {
        let timeZone = LocalTime.timeZone(identifier: zone) ?? TimeZone.gmt
        let wall = LocalTime.wallClockSeconds(at: instant, in: timeZone)
        let days = wall >= 0 ? wall / 86_400 : (wall - 86_399) / 86_400
        let second = wall - days * 86_400
        return LocalDate(daysSinceEpoch: Int(days)).description
            + String(format: "T%02d:%02d:%02d", Int(second / 3600), Int(second / 60 % 60), Int(second % 60))
    }
}
