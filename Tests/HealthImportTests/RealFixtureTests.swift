import SleepCore
import Testing

@testable import HealthImport

/// The real export fragments in Fixtures/real (see its README for attribution:
/// tdda/applehealthdata MIT, dogsheep/healthkit-to-sqlite Apache-2.0,
/// alxdrcirilo/apple-health-parser MIT).
struct RealFixtureTests {
    @Test func alxdrcirilo() throws {
        let outcome = try readAll(.path(realFixturePath("alxdrcirilo-apple-health-parser-export.xml")))
        // 2024-01-01 is day 19723; 00:55:28 +0200 is 2023-12-31 22:55:28 UTC.
        let inBed = SleepSample(
            source: "Alexandre's iPhone", start: 19_722 * 86_400 + 22 * 3600 + 55 * 60 + 28,
            end: 19_722 * 86_400 + 22 * 3600 + 56 * 60 + 53, stage: .inBed,
            timeZoneIdentifier: "Europe/Amsterdam", printedUTCOffset: 7200)
        let core = SleepSample(
            source: "Alexandre's Apple Watch", start: 19_723 * 86_400 + 1 * 3600 + 27 * 60 + 53,
            end: 19_723 * 86_400 + 1 * 3600 + 40 * 60 + 23, stage: .core,
            timeZoneIdentifier: "Europe/Amsterdam", printedUTCOffset: 7200)
        #expect(outcome.samples == [inBed, core])
        #expect(outcome.locations.map { $0.line } == [40, 46])
        #expect(outcome.report.kind == .xml)
        #expect(outcome.report.recordsSeen == 8)
        #expect(outcome.report.sleepRecords == 2)
        #expect(outcome.report.accepted == 2)
        #expect(outcome.report.rejected == 0)
        #expect(outcome.report.stageCounts == [.inBed: 1, .core: 1])
        #expect(outcome.report.earliestStart == inBed.start)
        #expect(outcome.report.latestEnd == core.end)
    }

    @Test func tddaWithFullAppleDTDAndNoSleep() throws {
        // The DTD with #REQUIRED declarations must be skipped, never handed to XMLParser.
        let outcome = try readAll(.path(realFixturePath("tdda-applehealthdata-export6s3sample.xml")))
        #expect(outcome.samples.isEmpty)
        #expect(outcome.report.recordsSeen == 15)
        #expect(outcome.report.sleepRecords == 0)
        #expect(outcome.report.diagnostics.isEmpty)
        #expect(outcome.report.inputBytes == 7002)
    }

    @Test func dogsheepWorkoutRouteIsNotARecord() throws {
        let outcome = try readAll(.path(realFixturePath("dogsheep-healthkit-to-sqlite-export.xml")))
        #expect(outcome.samples.isEmpty)
        #expect(outcome.report.recordsSeen == 2)
    }
}
