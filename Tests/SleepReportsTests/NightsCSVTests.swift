import SleepCore
import SleepReports
import Testing

/// The nights and naps tables. The night is docs/http-api.md's example of
/// `GET /api/v1/nights` (one night of the quickstart's export); its CSV cells are worked out
/// from that document: the columns are the night's JSON fields but its intervals and
/// segments, local times `YYYY-MM-DDTHH:MM` in the night's zone, instants ISO 8601 UTC
/// (Berlin is UTC+1 in November), durations in seconds (docs/admin.md).
@Suite("NightsCSV")
struct NightsCSVTests {
    static let documentedNight = Night(
        wakeDay: LocalDate(year: 2026, month: 11, day: 30), timeZoneIdentifier: "Europe/Berlin", bedtime: 1_795_986_069,
        onset: 1_795_987_217, wake: 1_796_021_338, asleepSeconds: 33_785, timeInBedSeconds: 35_269, awakeSeconds: 336,
        wakeUps: 1, latencySeconds: 1_148, stages: StageSeconds(deep: 8_894, rem: 11_552, core: 13_339, unspecified: 0),
        efficiency: 0.9579233888117044, hasStageData: true, source: "Anna's Apple Watch", fragmentCount: 1,
        setAsideSources: [],
        asleepIntervals: [
            TimeSpan(start: 1_795_987_217, end: 1_796_012_873), TimeSpan(start: 1_796_013_209, end: 1_796_021_338),
        ],
        stageSegments: [
            StageSegment(stage: .core, span: TimeSpan(start: 1_795_987_217, end: 1_795_987_928)),
            StageSegment(stage: .deep, span: TimeSpan(start: 1_795_987_928, end: 1_795_989_498)),
        ])

    static let expectedNightCells = [
        "wake_day": "2026-11-30", "time_zone": "Europe/Berlin", "bedtime_local": "2026-11-29T22:01",
        "onset_local": "2026-11-29T22:20", "wake_local": "2026-11-30T07:48", "bedtime": "2026-11-29T21:01:09Z",
        "onset": "2026-11-29T21:20:17Z", "wake": "2026-11-30T06:48:58Z", "asleep_seconds": "33785",
        "time_in_bed_seconds": "35269", "awake_seconds": "336", "wake_ups": "1", "latency_seconds": "1148",
        "deep_seconds": "8894", "rem_seconds": "11552", "core_seconds": "13339", "unspecified_seconds": "0",
        "efficiency": "0.9579233888117044", "has_stage_data": "true", "source": "Anna's Apple Watch",
        "fragment_count": "1", "set_aside_sources": "",
    ]

    /// `rows` as dictionaries from the header's names.
    static func records(_ table: CSVTable) -> [[String: String]] {
        let rows = CSVRows.parse(table.rendered)
        guard let header = rows.first else { return [] }
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test("a night: one row with every field of the API's night but its intervals and segments")
    func night() throws {
        let table = NightsCSV.nights([Self.documentedNight])
        #expect(Set(table.header) == Set(Self.expectedNightCells.keys))
        #expect(table.header.count == Self.expectedNightCells.count)
        #expect(table.rendered.hasSuffix("\r\n"))
        let records = Self.records(table)
        #expect(records.count == 1)
        #expect(try #require(records.first) == Self.expectedNightCells)
    }

    @Test("rows in the order given; an unknown latency is empty; set-aside sources joined by `;`, neutralised")
    func order() throws {
        var second = Self.documentedNight
        second.wakeDay = LocalDate(year: 2026, month: 11, day: 29)
        second.latencySeconds = nil
        second.hasStageData = false
        second.source = "=cmd|'/c calc'!A1"
        second.setAsideSources = ["Phone", "@Ring, left"]
        let records = Self.records(NightsCSV.nights([Self.documentedNight, second]))
        #expect(records.map { $0["wake_day"] } == ["2026-11-30", "2026-11-29"])
        #expect(records[1]["latency_seconds"] == "")
        #expect(records[1]["has_stage_data"] == "false")
        #expect(records[1]["source"] == "'=cmd|'/c calc'!A1")
        #expect(records[1]["set_aside_sources"] == "Phone;@Ring, left")
        #expect(NightsCSV.nights([]).rendered == NightsCSV.nights([]).header.joined(separator: ",") + "\r\n")
    }

    @Test("a nap: the API's nap fields; a hostile source can neither run nor break the table")
    func nap() throws {
        // 2026-11-29T13:00:00Z is 1_795_957_200 (day 20786); 14:00 in Berlin.
        let nap = Nap(
            wakeDay: LocalDate(year: 2026, month: 11, day: 29), timeZoneIdentifier: "Europe/Berlin",
            source: "=HYPERLINK(\"http://x\",\"y\")\u{1B}[2J", start: 1_795_957_200, end: 1_795_959_000,
            asleepSeconds: 1_740)
        let table = NightsCSV.naps([nap])
        #expect(
            Set(table.header)
                == ["wake_day", "time_zone", "start", "end", "start_local", "end_local", "asleep_seconds", "source"])
        let record = try #require(Self.records(table).first)
        #expect(
            record == [
                "wake_day": "2026-11-29", "time_zone": "Europe/Berlin", "start_local": "2026-11-29T14:00",
                "end_local": "2026-11-29T14:30", "start": "2026-11-29T13:00:00Z", "end": "2026-11-29T13:30:00Z",
                "asleep_seconds": "1740", "source": "'=HYPERLINK(\"http://x\",\"y\")␛[2J",
            ])
        #expect(table.rendered.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")␛[2J\""))
    }
}
