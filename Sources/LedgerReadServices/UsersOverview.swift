import LedgerStore
public import SleepCore

/// The admin overview of every user (`sleepledger-admin users`): one row per user with
/// settings, tracked nights, last night, the weekly headline (as the last rollup stored it,
/// or computed for another as-of day from the stored nights) and the last import and
/// rollup; filtered by severity and sorted.
public struct UsersOverview: Sendable, Hashable {
    /// The orders the rows can come in.
    public enum Sort: String, Sendable, CaseIterable {
        /// Largest 7-day debt first.
        case debt
        /// Lowest weekly score first.
        case score
        /// By handle key (letter case and accent encoding do not matter).
        case handle
        /// Longest ago first.
        case lastNight = "last-night"
    }

    /// One user's row; its JSON is `sleepledger-admin users --format json`'s (docs/admin.md).
    public struct Row: Sendable, Hashable, Codable {
        /// The handle.
        public var handle: String
        /// The user's IANA zone.
        public var timeZone: String
        /// How many nights are stored.
        public var trackedNights: Int
        /// The wake day of the latest stored night (with an as-of day: of the latest night
        /// the weekly summary read).
        public var lastNightWakeDay: LocalDate?
        /// That night's asleep time.
        public var lastNightAsleepSeconds: Int64?
        /// The day the weekly figures are as of; `nil` with no figures.
        public var asOf: LocalDate?
        /// The weekly debt.
        public var debtSeconds: Int64?
        /// The weekly debt's severity.
        public var severity: DebtSeverity?
        /// The weekly score.
        public var score: Int?
        /// The weekly score's grade.
        public var grade: SleepGrade?
        /// When the latest import started, epoch seconds.
        public var lastImportAt: Int64?
        /// When the rollup last wrote the user's results, epoch seconds.
        public var lastRollupAt: Int64?

        enum CodingKeys: String, CodingKey {
            case handle, severity, score, grade
            case timeZone = "time_zone"
            case trackedNights = "tracked_nights"
            case lastNightWakeDay = "last_night_wake_day"
            case lastNightAsleepSeconds = "last_night_asleep_seconds"
            case asOf = "as_of"
            case debtSeconds = "debt_seconds"
            case lastImportAt = "last_import_at"
            case lastRollupAt = "last_rollup_at"
        }
    }

    /// The rows kept by the severity filter, in the chosen order.
    public var rows: [Row]
    /// How many users there are, kept or not.
    public var userCount: Int
    /// The as-of day the weekly figures were computed for; `nil` for the stored ones.
    public var asOf: LocalDate?
}

extension UserService {
    /// The overview of every user. Without `asOf` the weekly figures are the stored
    /// headline (none for a user without stored nights: an all-zero headline would read as
    /// "no debt"); with it, the weekly summary computed from the stored nights
    /// (``SummaryService/summary(for:horizon:asOf:)``) and the latest night it read. Keeps
    /// the users of `severity` when given; ties and missing values fall back to handle order.
    public func overview(asOf: LocalDate?, severity: DebtSeverity?, sort: UsersOverview.Sort)
        throws(ServiceError) -> UsersOverview
    {
        try SupportedDates.check(asOf, "the as-of day")
        let overviews = try ServiceError.wrapping { try AdminQueries(connection: session.connection).userOverviews() }
        var rows: [UsersOverview.Row] = []
        for overview in overviews { rows.append(try row(of: overview, asOf: asOf)) }
        if let severity { rows = rows.filter { $0.severity == severity } }
        return UsersOverview(rows: Self.sorted(rows, by: sort), userCount: overviews.count, asOf: asOf)
    }

    /// The row of one user: stored headline, or with `asOf` the weekly summary computed
    /// from the stored nights.
    private func row(of overview: AdminUserOverview, asOf: LocalDate?) throws(ServiceError) -> UsersOverview.Row {
        var row = UsersOverview.Row(
            handle: overview.user.handle, timeZone: overview.user.timeZoneIdentifier,
            trackedNights: overview.trackedNights, lastNightWakeDay: overview.lastNightWakeDay,
            lastNightAsleepSeconds: overview.lastNightAsleepSeconds, asOf: overview.weekly?.asOf,
            debtSeconds: overview.weekly?.debtSeconds, severity: overview.weekly?.severity,
            score: overview.weekly?.score, grade: overview.weekly?.grade, lastImportAt: overview.lastImportAt,
            lastRollupAt: overview.lastRollupAt)
        if overview.trackedNights == 0 || asOf != nil {
            // Nothing tracked yet: a stored all-zero headline would read as "no debt". With
            // an as-of day the stored headline is not what was asked for.
            row.asOf = nil
            row.debtSeconds = nil
            row.severity = nil
            row.score = nil
            row.grade = nil
        }
        guard let asOf, overview.trackedNights > 0 else { return row }
        let results = SummaryService(session: session)
        guard case .found(let summary) = try results.summary(for: overview.user, horizon: .weekly, asOf: asOf) else {
            return row
        }
        // The latest stored night among those the weekly summary read. The week before an
        // as-of day early in 1900 starts before the supported dates, where no night is stored.
        let first = max(LookBack.nights(for: [.weekly], asOf: asOf).wakeDays.first, LocalDate.supportedRange.lowerBound)
        let latest = try results.nights(for: overview.user, from: first, through: asOf).last
        row.asOf = asOf
        row.debtSeconds = summary.debt.debtSeconds
        row.severity = summary.debt.severity
        row.score = summary.score.overall
        row.grade = summary.score.grade
        row.lastNightWakeDay = latest?.wakeDay
        row.lastNightAsleepSeconds = latest?.asleepSeconds
        return row
    }

    /// `rows` (in handle order) in the order `sort` names; ties and missing values keep
    /// handle order.
    package static func sorted(_ rows: [UsersOverview.Row], by sort: UsersOverview.Sort) -> [UsersOverview.Row] {
        typealias Row = UsersOverview.Row
        let indexed = Array(rows.enumerated())
        func by(_ isBefore: (Row, Row) -> Bool?) -> [Row] {
            indexed.sorted { a, b in isBefore(a.element, b.element) ?? (a.offset < b.offset) }.map(\.element)
        }
        /// `nil` when equal, so handle order decides.
        func order<Value: Comparable>(_ x: Value, _ y: Value, _ isBefore: (Value, Value) -> Bool) -> Bool? {
            x == y ? nil : isBefore(x, y)
        }
        switch sort {
        case .handle:
            return rows
        case .debt:
            return by { a, b in order(a.debtSeconds ?? -1, b.debtSeconds ?? -1, >) }
        case .score:
            return by { a, b in order(a.score ?? 101, b.score ?? 101, <) }
        case .lastNight:
            return by { a, b in
                order(
                    a.lastNightWakeDay?.daysSinceEpoch ?? Int.min, b.lastNightWakeDay?.daysSinceEpoch ?? Int.min, <)
            }
        }
    }
}
