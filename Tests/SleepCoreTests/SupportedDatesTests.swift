import SleepCore
import Testing

/// The supported dates (1900-01-01 through 2199-12-31) and how dates are written for
/// every year, inside that range and out of it.
@Suite("Supported dates")
struct SupportedDatesTests {
    @Test(
        "a date is written YYYY-MM-DD for every year: four digits at least, a minus sign before year 0",
        arguments: [
            (1900, 1, 1, "1900-01-01"), (2199, 12, 31, "2199-12-31"), (2024, 2, 29, "2024-02-29"),
            (1, 1, 1, "0001-01-01"), (999, 10, 5, "0999-10-05"), (9999, 12, 31, "9999-12-31"),
            (0, 1, 1, "0000-01-01"), (-1, 12, 31, "-0001-12-31"), (-9, 3, 4, "-0009-03-04"),
            (-12_345, 6, 7, "-12345-06-07"), (10_000, 1, 1, "10000-01-01"),
        ] as [(Int, Int, Int, String)])
    func description(year: Int, month: Int, day: Int, text: String) {
        let date = LocalDate(year: year, month: month, day: day)
        #expect(date.description == text)
        // Four-digit years read back; the rest are never taken from a person.
        if (0...9999).contains(year) { #expect(LocalDate(text) == date) }
    }

    @Test(
        "the supported range is 1900-01-01 through 2199-12-31: edges, just outside, years 1, 9999, 0 and negative",
        arguments: [
            (LocalDate(year: 1900, month: 1, day: 1), true), (LocalDate(year: 2199, month: 12, day: 31), true),
            (LocalDate(year: 2025, month: 3, day: 17), true), (LocalDate(year: 1899, month: 12, day: 31), false),
            (LocalDate(year: 2200, month: 1, day: 1), false), (LocalDate(year: 1, month: 1, day: 1), false),
            (LocalDate(year: 9999, month: 12, day: 31), false), (LocalDate(year: 0, month: 1, day: 1), false),
            (LocalDate(year: -1, month: 12, day: 31), false),
        ] as [(LocalDate, Bool)])
    func range(date: LocalDate, isSupported: Bool) {
        #expect(date.isSupported == isSupported)
        #expect(LocalDate.supportedRange.contains(date) == isSupported)
    }

    @Test("supported instants are the UTC seconds of the supported days, and the range names itself")
    func instants() {
        #expect(LocalDate.supportedInstants.lowerBound == -2_208_988_800)  // 1900-01-01T00:00:00Z
        #expect(LocalDate.supportedInstants.upperBound == 7_258_118_400 - 1)  // 2199-12-31T23:59:59Z
        #expect(LocalDate.supportedRangeText == "1900-01-01 through 2199-12-31")
    }

    @Test(
        "samples starting or ending outside the supported instants are rejected with a diagnostic",
        arguments: [
            (Int64(-2_208_988_800), Int64(-2_208_988_800 + 3600), true),
            (7_258_118_400 - 3600, 7_258_118_400 - 1, true),
            (-2_208_988_801, -2_208_988_800 + 3600, false),
            (7_258_118_400 - 3600, 7_258_118_400, false),
            (-62_135_596_800, -62_135_596_800 + 3600, false),  // 0001-01-01
            (253_402_297_200, 253_402_300_799, false),  // 9999-12-31
            (-62_167_219_200 - 86_400, -62_167_219_200, false),  // before year 0
        ] as [(Int64, Int64, Bool)])
    func samplesOutsideAreRejected(start: Int64, end: Int64, isAccepted: Bool) {
        let location = SampleLocation(file: "export.xml", line: 7)
        let result = SampleValidator.validate(
            samples: [SleepSample(source: "Watch", start: start, end: end, stage: .core)], locations: [location])
        #expect(result.accepted.count == (isAccepted ? 1 : 0))
        if !isAccepted {
            #expect(
                result.diagnostics == [
                    SampleDiagnostic(reason: .outsideSupportedDates, source: "Watch", location: location)
                ])
            #expect(
                result.diagnostics.first?.reason.description
                    == "start or end lies outside the supported dates 1900-01-01 through 2199-12-31")
        }
    }
}
