import SleepCore
import Testing

@testable import HealthImport

/// Issue 24, item 6: on the shipped real fixtures (Fixtures/real, attribution in its
/// README) every personal measure says it has too few nights, and why.
struct RealFixturePersonalTests {
    @Test(
        "each real export: the need falls back to the prior with its reason, chronotype is undefined with its counts",
        arguments: [
            "alxdrcirilo-apple-health-parser-export.xml", "tdda-applehealthdata-export6s3sample.xml",
            "dogsheep-healthkit-to-sqlite-export.xml",
        ])
    func tooFewNights(file: String) throws {
        let outcome = try readAll(.path(realFixturePath(file)))
        let built = NightBuilder().build(from: outcome.samples, userTimeZoneIdentifier: "UTC")
        // None of them holds a night (the one sleep record is a 12.5-minute nap).
        #expect(built.nights.isEmpty)
        let asOf = LocalDate(year: 2024, month: 1, day: 1)
        let need = SleepNeedEstimate.estimate(nights: built.nights, asOf: asOf)
        #expect(need.method == .prior)
        #expect(need.needSeconds == 29_376)
        #expect(
            need.tooFewNightsReason
                == "0 free nights in the window: fewer than 4 and no run of 3 consecutive free nights")
        let chronotype = Chronotype.estimate(nights: built.nights, asOf: asOf)
        #expect(chronotype.reason == .tooFewNights)
        #expect(
            chronotype.undefinedReason
                == "0 free and 0 work nights in the last 42 days: at least 4 free and 10 work nights are needed")
        #expect(NightConfidence.assess(nights: built.nights, samples: outcome.samples).isEmpty)
        #expect(ConfidenceSummary([]).isSmallSample)
    }
}
