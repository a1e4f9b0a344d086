/// The six summary horizons of spec section 4: windows of wake days ending on the as-of
/// day, each with its chart buckets. Raw values are the names used in JSON and URLs.
public enum Horizon: String, Sendable, Hashable, Codable, CaseIterable {
    /// The latest night waking on the as-of day or the day before.
    case daily
    /// The last 7 days, one bucket per day.
    case weekly
    /// One calendar month back, one bucket per ISO week (Monday first), cut to the window.
    case monthly
    /// One year back, one bucket per calendar month, cut to the window.
    case yearly
    /// Five years back, one bucket per calendar year, cut to the window.
    case fiveYears = "5y"
    /// Ten years back, one bucket per calendar year, cut to the window.
    case tenYears = "10y"

    /// The window of wake days ending on (and including) `asOf`.
    ///
    /// daily: the as-of day and the day before (the latest night in it is used);
    /// weekly: 7 days; monthly/yearly/5y/10y: from the day after the same date 1 month,
    /// 1, 5 or 10 years earlier (clamped to that month's end) through `asOf`.
    public func window(asOf: LocalDate) -> WakeDayRange {
        switch self {
        case .daily: return WakeDayRange(first: asOf.adding(days: -1), last: asOf)
        case .weekly: return WakeDayRange(first: asOf.adding(days: -6), last: asOf)
        case .monthly:
            return WakeDayRange(
                first: Horizon.sameDate(asOf, monthsEarlier: 1).adding(days: 1), last: asOf)
        case .yearly:
            return WakeDayRange(
                first: Horizon.sameDate(asOf, monthsEarlier: 12).adding(days: 1), last: asOf)
        case .fiveYears:
            return WakeDayRange(
                first: Horizon.sameDate(asOf, monthsEarlier: 60).adding(days: 1), last: asOf)
        case .tenYears:
            return WakeDayRange(
                first: Horizon.sameDate(asOf, monthsEarlier: 120).adding(days: 1), last: asOf)
        }
    }

    /// The chart buckets of the window, in order, covering it exactly; the first and last
    /// are cut to the window. daily has one bucket, the whole window.
    public func buckets(asOf: LocalDate) -> [WakeDayRange] {
        let window = window(asOf: asOf)
        let first = window.first.daysSinceEpoch
        let last = window.last.daysSinceEpoch
        var result: [WakeDayRange] = []
        switch self {
        case .daily:
            return [window]
        case .weekly:
            for n in first...last {
                let day = LocalDate(daysSinceEpoch: n)
                result.append(WakeDayRange(first: day, last: day))
            }
        case .monthly:
            var start = first
            while start <= last {
                let weekday = LocalDate(daysSinceEpoch: start).isoWeekday
                let end = min(last, start + (7 - weekday))
                result.append(
                    WakeDayRange(
                        first: LocalDate(daysSinceEpoch: start),
                        last: LocalDate(daysSinceEpoch: end)))
                start = end + 1
            }
        case .yearly:
            var start = window.first
            while start <= window.last {
                let monthEnd = LocalDate(
                    year: start.year, month: start.month,
                    day: LocalDate.daysInMonth(year: start.year, month: start.month))
                let end = min(window.last, monthEnd)
                result.append(WakeDayRange(first: start, last: end))
                start = end.adding(days: 1)
            }
        case .fiveYears, .tenYears:
            var start = window.first
            while start <= window.last {
                let end = min(window.last, LocalDate(year: start.year, month: 12, day: 31))
                result.append(WakeDayRange(first: start, last: end))
                start = end.adding(days: 1)
            }
        }
        return result
    }

    /// The same day of the month `months` months before `date`, clamped to that month's
    /// last day (2024-03-31 minus 1 month is 2024-02-29; 2024-02-29 minus 12 months is
    /// 2023-02-28).
    static func sameDate(_ date: LocalDate, monthsEarlier months: Int) -> LocalDate {
        let index = date.year * 12 + (date.month - 1) - months
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        let month = index - year * 12 + 1
        return LocalDate(
            year: year, month: month,
            day: min(date.day, LocalDate.daysInMonth(year: year, month: month)))
    }
}
