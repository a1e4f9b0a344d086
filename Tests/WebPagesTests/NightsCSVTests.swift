import SleepCore
import SleepReports
import Testing

@testable import WebPages

/// The nights download: the admin tool's nights CSV (SleepReports' NightsCSV), cells safe
/// for spreadsheets.
@Suite("Nights CSV")
struct NightsCSVTests {
    static func rows(_ csv: String) -> [String] {
        csv.components(separatedBy: "\r\n").dropLast().map { $0 }
    }

    @Test("a header and one CRLF-ended row per night, every field in the admin's order")
    func table() throws {
        let nights = WebFixtures.windowNights(WebFixtures.rich(.weekly))
        let csv = NightsView.csv(nights)
        #expect(csv.hasSuffix("\r\n"))
        let lines = Self.rows(csv)
        #expect(lines.count == nights.count + 1)
        #expect(
            lines.first
                == "wake_day,time_zone,bedtime_local,onset_local,wake_local,bedtime,onset,wake,asleep_seconds,"
                + "time_in_bed_seconds,awake_seconds,wake_ups,latency_seconds,deep_seconds,rem_seconds,core_seconds,"
                + "unspecified_seconds,efficiency,has_stage_data,source,fragment_count,set_aside_sources")
        let night = try #require(nights.first)
        let fields = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 22)
        #expect(fields[0] == night.wakeDay.description && fields[1] == night.timeZoneIdentifier)
        #expect(fields[8] == String(night.asleepSeconds) && fields[13] == String(night.stages.deep))
        #expect(fields[18] == (night.hasStageData ? "true" : "false"))
        #expect(fields[12] == (night.latencySeconds.map(String.init) ?? ""))
        #expect(NightsView.csvContentType == "text/csv; charset=utf-8")
    }

    @Test(
        "a person's values cannot become formulas or break the table",
        arguments: [
            ("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""),
            ("+1+1", "'+1+1"), ("@SUM(A1)", "'@SUM(A1)"), ("-2+3", "'-2+3"),
            ("Anna's Watch, left", "\"Anna's Watch, left\""),
            ("\u{1B}[2J", "\u{241B}[2J"), ("plain", "plain"),
        ])
    func hostileSource(source: String, expected: String) throws {
        var night = try #require(WebFixtures.richNights.last)
        night.source = source
        night.setAsideSources = ["=cmd|'/c calc'!A1", "b"]
        let row = Self.rows(NightsView.csv([night]))[1]
        #expect(row.contains("," + expected + ","))
        #expect(row.hasSuffix(",'=cmd|'/c calc'!A1;b"))
    }
}
