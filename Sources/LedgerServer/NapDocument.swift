import Foundation
import SleepCore

/// One stored nap as `GET /api/v1/nights` serves it (the conventions of ``NightDocument``).
struct NapDocument: Encodable {
    var nap: Nap

    enum CodingKeys: String, CodingKey {
        case wakeDay = "wake_day"
        case timeZone = "time_zone"
        case start, end
        case startLocal = "start_local"
        case endLocal = "end_local"
        case asleepSeconds = "asleep_seconds"
        case source
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nap.wakeDay, forKey: .wakeDay)
        try container.encode(nap.timeZoneIdentifier, forKey: .timeZone)
        try container.encode(nap.start, forKey: .start)
        try container.encode(nap.end, forKey: .end)
        try container.encode(NightDocument.local(nap.start, nap.timeZoneIdentifier), forKey: .startLocal)
        try container.encode(NightDocument.local(nap.end, nap.timeZoneIdentifier), forKey: .endLocal)
        try container.encode(nap.asleepSeconds, forKey: .asleepSeconds)
        try container.encode(nap.source, forKey: .source)
    }
}
