import SleepCore
import Testing

/// Spec sections 0 and 1: whole seconds, rejections with diagnostics, duplicate keys.
@Suite("Sample validation")
struct SampleValidationTests {
    let location = SampleLocation(file: "export.xml", line: 42)

    @Test(
        "Instants round to the nearest whole second",
        arguments: [
            (10.4999, Int64(10)), (10.5, 11), (-0.5, -1), (-0.4, 0), (1_700_000_000.6, 1_700_000_001),
        ])
    func rounding(instant: Double, expected: Int64) {
        #expect(SampleValidator.wholeSecond(instant) == expected)
    }

    @Test("Non-finite instants are not instants")
    func nonFinite() {
        #expect(SampleValidator.wholeSecond(.nan) == nil)
        #expect(SampleValidator.wholeSecond(.infinity) == nil)
        let result = SampleValidator.validate([
            RawSleepSample(
                source: "Watch", start: .nan, end: 10, value: "HKCategoryValueSleepAnalysisAsleepCore",
                location: location)
        ])
        #expect(result.accepted.isEmpty)
        #expect(result.diagnostics == [SampleDiagnostic(reason: .invalidInstant, source: "Watch", location: location)])
    }

    @Test("An end not after the start is rejected, also when rounding makes them equal")
    func endNotAfterStart() {
        let result = SampleValidator.validate([
            RawSleepSample(
                source: "Watch", start: 100, end: 100, value: "HKCategoryValueSleepAnalysisInBed", location: location),
            RawSleepSample(source: "Watch", start: 200, end: 150, value: "HKCategoryValueSleepAnalysisAwake"),
            RawSleepSample(source: "Watch", start: 300.2, end: 300.4, value: "HKCategoryValueSleepAnalysisAsleepREM"),
            RawSleepSample(source: "Watch", start: 300.4, end: 300.6, value: "HKCategoryValueSleepAnalysisAsleepREM"),
        ])
        #expect(
            result.diagnostics.map(\.reason) == [
                .endNotAfterStart(start: 100, end: 100), .endNotAfterStart(start: 200, end: 150),
                .endNotAfterStart(start: 300, end: 300),
            ])
        #expect(result.diagnostics.first?.location == location)
        #expect(result.accepted == [SleepSample(source: "Watch", start: 300, end: 301, stage: .rem)])
    }

    @Test("An unknown value is rejected with a diagnostic naming the value and its location")
    func unknownValue() {
        let result = SampleValidator.validate([
            RawSleepSample(
                source: "Watch", start: 0, end: 60, value: "HKCategoryValueSleepAnalysisNap", location: location)
        ])
        #expect(result.accepted.isEmpty)
        let diagnostic = result.diagnostics.first
        #expect(diagnostic?.reason == .unknownValue("HKCategoryValueSleepAnalysisNap"))
        #expect(
            diagnostic?.description
                == "export.xml:42: unknown sleep value \"HKCategoryValueSleepAnalysisNap\" (source \"Watch\")")
    }

    @Test("Asleep and AsleepUnspecified are one value, so they share a duplicate key")
    func legacyAsleepNormalisedBeforeDuplicateKey() {
        let result = SampleValidator.validate([
            RawSleepSample(source: "iPhone", start: 0, end: 3_600, value: "HKCategoryValueSleepAnalysisAsleep"),
            RawSleepSample(
                source: "iPhone", start: 0.3, end: 3_599.8, value: "HKCategoryValueSleepAnalysisAsleepUnspecified"),
            RawSleepSample(source: "iPhone", start: 0, end: 3_600, value: "HKCategoryValueSleepAnalysisAsleepCore"),
            RawSleepSample(source: "Watch", start: 0, end: 3_600, value: "HKCategoryValueSleepAnalysisAsleep"),
        ])
        #expect(result.duplicateCount == 1)
        #expect(result.diagnostics.isEmpty)
        #expect(result.accepted.map(\.stage) == [.asleepUnspecified, .core, .asleepUnspecified])
        #expect(result.accepted.map(\.source) == ["iPhone", "iPhone", "Watch"])
    }

    @Test("Zone fields are not part of the duplicate key; the first occurrence is kept")
    func zoneNotInKey() {
        let first = SleepSample(source: "Watch", start: 0, end: 60, stage: .core, timeZoneIdentifier: "Europe/Berlin")
        var second = first
        second.timeZoneIdentifier = "America/New_York"
        let result = SampleValidator.validate(samples: [first, second, first])
        #expect(result.accepted == [first])
        #expect(result.duplicateCount == 2)
    }

    @Test("Streaming validation reports each rejection as it happens, with its location")
    func streaming() {
        var validator = SampleValidator()
        #expect(
            validator.add(RawSleepSample(source: "A", start: 0, end: 60, value: "HKCategoryValueSleepAnalysisInBed"))
                == nil)
        let rejected = validator.add(
            SleepSample(source: "A", start: 60, end: 0, stage: .inBed), location: SampleLocation(line: 7))
        #expect(rejected?.location?.description == "line 7")
        #expect(validator.result.accepted.count == 1)
        #expect(validator.result.diagnostics.count == 1)
        #expect(SampleLocation(file: "a.csv").description == "a.csv")
        #expect(SampleLocation().description == "unknown location")
    }

    @Test(
        "each stage's HealthKit value reads back as the stage",
        arguments: [
            (SleepStage.inBed, "HKCategoryValueSleepAnalysisInBed"),
            (.asleepUnspecified, "HKCategoryValueSleepAnalysisAsleepUnspecified"),
            (.core, "HKCategoryValueSleepAnalysisAsleepCore"), (.deep, "HKCategoryValueSleepAnalysisAsleepDeep"),
            (.rem, "HKCategoryValueSleepAnalysisAsleepREM"), (.awake, "HKCategoryValueSleepAnalysisAwake"),
        ])
    func healthKitValue(stage: SleepStage, value: String) {
        #expect(stage.healthKitValue == value)
        #expect(SleepStage(healthKitValue: value) == stage)
    }
}
