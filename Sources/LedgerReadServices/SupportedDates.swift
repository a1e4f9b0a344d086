package import SleepCore

/// The check every use case applies to a date a person gave it.
package enum SupportedDates {
    /// Refuses a date outside `LocalDate.supportedRange` (1900-01-01 through 2199-12-31)
    /// with ``ServiceError/Kind/invalidInput`` naming what the date is (`the as-of day`)
    /// and the range; `nil` passes.
    package static func check(_ date: LocalDate?, _ what: String) throws(ServiceError) {
        guard let date, !date.isSupported else { return }
        throw ServiceError(
            .invalidInput, "\(what) \(date) is outside the supported dates \(LocalDate.supportedRangeText)")
    }
}
