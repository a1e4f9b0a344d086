import Foundation
public import SleepCore

/// The stored nights and naps as CSV tables, one row each with every field: what
/// `sleepledger-admin nights --format csv` prints and the web page's nights download
/// serves. Local times are `YYYY-MM-DDTHH:MM` in each night's own zone, instants ISO 8601
/// UTC; cells go through ``CSVTable`` (formulas neutralised, controls replaced).
public enum NightsCSV {
    /// The nights table's header.
    public static let nightHeader = [
        "wake_day", "time_zone", "bedtime_local", "onset_local", "wake_local", "bedtime", "onset", "wake",
        "asleep_seconds", "time_in_bed_seconds", "awake_seconds", "wake_ups", "latency_seconds", "deep_seconds",
        "rem_seconds", "core_seconds", "unspecified_seconds", "efficiency", "has_stage_data", "source",
        "fragment_count", "set_aside_sources",
    ]

    /// The naps table's header.
    public static let napHeader = [
        "wake_day", "time_zone", "start_local", "end_local", "start", "end", "asleep_seconds", "source",
    ]

    /// The nights table: the header and one row per night, in the order given.
    public static func nights(_ nights: [Night], confidences: [LocalDate: NightConfidence]? = nil) -> CSVTable {
        var table = CSVTable(header: nightHeader + (confidences == nil ? [] : ["confidence"]))
        for night in nights {
            var confidenceCell: [String] = []
            if let confidences { confidenceCell = [confidences[night.wakeDay].map { String($0.value) } ?? ""] }
            let zone = night.timeZoneIdentifier
            table.append(
                [
                    night.wakeDay.description, zone, local(night.bedtime, zone), local(night.onset, zone),
                    local(night.wake, zone), ReportFormat.isoUTC(night.bedtime), ReportFormat.isoUTC(night.onset),
                    ReportFormat.isoUTC(night.wake), String(night.asleepSeconds), String(night.timeInBedSeconds),
                    String(night.awakeSeconds), String(night.wakeUps), night.latencySeconds.map(String.init) ?? "",
                    String(night.stages.deep), String(night.stages.rem), String(night.stages.core),
                    String(night.stages.unspecified), String(night.efficiency), night.hasStageData ? "true" : "false",
                    night.source, String(night.fragmentCount), night.setAsideSources.joined(separator: ";"),
                ] + confidenceCell)
        }
        return table
    }

    /// The naps table: the header and one row per nap, in the order given.
    public static func naps(_ naps: [Nap]) -> CSVTable {
        var table = CSVTable(header: napHeader)
        for nap in naps {
            let zone = nap.timeZoneIdentifier
            table.append([
                nap.wakeDay.description, zone, local(nap.start, zone), local(nap.end, zone),
                ReportFormat.isoUTC(nap.start), ReportFormat.isoUTC(nap.end), String(nap.asleepSeconds), nap.source,
            ])
        }
        return table
    }

    /// `YYYY-MM-DDTHH:MM` local time of an instant in `zone`.
    static func local(_ instant: Int64, _ zone: String) -> String {
        ReportFormat.localTime(instant, zone: zone).replacingOccurrences(of: " ", with: "T")
    }
}
