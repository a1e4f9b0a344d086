import Foundation
public import LedgerReadServices
public import LedgerStore
public import SleepCore

extension AccountService {
    /// What issue 24 shows a person: the need estimate, chronotype and the confidence of a
    /// window's nights as of a day, and today's sleep-pressure curve.
    public struct PersonalView: Sendable, Hashable {
        /// The user.
        public var user: User
        /// The window whose nights' confidence is summed up.
        public var window: WakeDayRange
        /// Need, chronotype and confidence.
        public var results: PersonalResults
        /// Today's pressure curve in the person's zone; `nil` without MSFsc.
        public var pressure: SleepPressureCurve?
    }

    /// The personal view as of `asOf` (the person's today at `now` when `nil`) over the
    /// window of `horizon`; the pressure curve is always today's, computed from the stored
    /// nights at `now`, never stored.
    public func personal(horizon: Horizon, asOf: LocalDate?, now: Int64) throws(ServiceError) -> PersonalView {
        try SupportedDates.check(asOf, "the as-of day")
        return try asUser { session, user in
            let zone = LocalTime.timeZone(identifier: user.timeZoneIdentifier) ?? TimeZone.gmt
            let today = LocalTime.localDate(of: now, in: zone)
            let day = asOf ?? today
            let window = horizon.window(asOf: day)
            let results = try SummaryService(session: session, rules: rules).personal(
                for: user, asOf: day, window: window)
            let history = try ServiceError.wrapping {
                try NightStore(connection: session.connection).nights(
                    userID: user.id, from: today.adding(days: -4), through: today.adding(days: 1), segmentsFrom: today)
            }
            let pressure = SleepPressureCurve.curve(
                day: today, timeZoneIdentifier: user.timeZoneIdentifier, now: now, nights: history,
                chronotype: results.chronotype, needSeconds: results.need.needSeconds)
            return PersonalView(user: user, window: window, results: results, pressure: pressure)
        }
    }
}
