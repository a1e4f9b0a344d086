import SleepCore

/// The fields of one sleep record (an XML `Record` or a CSV row) as text, before they
/// are checked and turned into a ``SleepSample``.
struct SleepRecordFields: Sendable, Hashable {
    /// The HealthKit type; `nil` when the input has no type (a CSV without the column).
    var type: String?
    var sourceName: String?
    var startDate: String?
    var endDate: String?
    var value: String?
    /// The `HKTimeZone` metadata value.
    var timeZone: String?

    /// The record's type for sleep analysis.
    static let sleepAnalysisType = "HKCategoryTypeIdentifierSleepAnalysis"

    /// Turns the fields into a sample, or returns the reason the record is rejected.
    ///
    /// `value` is looked up with ``SleepStage/init(healthKitValue:)``; the short forms
    /// without the `HKCategoryValueSleepAnalysis` prefix (`InBed`, `AsleepCore`...) are
    /// accepted too. Start and end round to the nearest second and must lie within
    /// `LocalDate.supportedInstants` (1900 through 2199, UTC); the printed offset of the
    /// start date becomes ``SleepSample/printedUTCOffset``.
    func sample() -> Result<SleepSample, RecordRejection> {
        guard let sourceName else { return .failure(RecordRejection(.missingSourceName, "missing sourceName")) }
        guard let startDate else { return .failure(RecordRejection(.missingStartDate, "missing startDate")) }
        guard let endDate else { return .failure(RecordRejection(.missingEndDate, "missing endDate")) }
        guard let value else { return .failure(RecordRejection(.missingValue, "missing value")) }
        guard
            let stage = SleepStage(healthKitValue: value)
                ?? SleepStage(healthKitValue: "HKCategoryValueSleepAnalysis" + value)
        else {
            return .failure(
                RecordRejection(.unknownSleepValue, "unknown sleep value \(DiagnosticText.quoted(value))"))
        }
        guard let start = HealthTimestamp(parsing: startDate) else {
            return .failure(
                RecordRejection(.unreadableStartDate, "unreadable startDate \(DiagnosticText.quoted(startDate))"))
        }
        guard let end = HealthTimestamp(parsing: endDate) else {
            return .failure(
                RecordRejection(.unreadableEndDate, "unreadable endDate \(DiagnosticText.quoted(endDate))"))
        }
        guard LocalDate.supportedInstants.contains(start.secondsSince1970) else {
            return .failure(Self.outsideSupportedDates("startDate", startDate))
        }
        guard LocalDate.supportedInstants.contains(end.secondsSince1970) else {
            return .failure(Self.outsideSupportedDates("endDate", endDate))
        }
        guard end.secondsSince1970 > start.secondsSince1970 else {
            return .failure(
                RecordRejection(
                    .endNotAfterStart,
                    "endDate \(DiagnosticText.unquoted(endDate)) is not after startDate \(DiagnosticText.unquoted(startDate))"
                ))
        }
        let zone = timeZone.flatMap { $0.isEmpty ? nil : $0 }
        return .success(
            SleepSample(
                source: sourceName, start: start.secondsSince1970, end: end.secondsSince1970, stage: stage,
                timeZoneIdentifier: zone, printedUTCOffset: start.utcOffsetSeconds))
    }

    private static func outsideSupportedDates(_ name: String, _ text: String) -> RecordRejection {
        RecordRejection(
            .outsideSupportedDates,
            "\(name) \(DiagnosticText.unquoted(text)) is outside the supported dates \(LocalDate.supportedRangeText)")
    }
}
