public import LedgerStore
import PostgresClient
public import SleepCore

/// A user's results: the summary of a horizon, the nights and naps, and the rollup's
/// bookkeeping; read from what the rollup stored, or, for another as-of day, computed on
/// the fly from the stored nights through the same code the rollup uses
/// (``summaries(userID:goals:asOf:horizons:rules:nights:rebuilt:)``).
public struct SummaryService {
    /// Why there is no summary to show, with what to do about it.
    public enum Absence: Sendable, Hashable {
        /// The rollup never ran for the user.
        case neverRolledUp
        /// Nothing was imported for the user.
        case noSamples
        /// Samples were imported but none formed a night (all too short, or naps only).
        case samplesWithoutNights
        /// Nights are stored but no summary of this horizon is.
        case noStoredSummary
    }

    /// A summary, or why there is none.
    public enum Lookup: Sendable, Hashable {
        /// The summary.
        case found(Summary)
        /// Why there is none.
        case absent(Absence)
    }

    /// The session every call uses.
    public let session: LedgerSession
    /// The rules summaries computed on the fly use.
    public let rules: MetricRules

    /// Creates the service over `session`.
    public init(session: LedgerSession, rules: MetricRules = .standard) {
        self.session = session
        self.rules = rules
    }

    private var connection: Connection { session.connection }

    /// The summary of `horizon` for `user`: with `asOf`, computed now from the stored
    /// nights (nothing is written); without, as the last rollup stored it. An `asOf`
    /// outside `LocalDate.supportedRange` is refused (``ServiceError/Kind/invalidInput``).
    public func summary(for user: User, horizon: Horizon, asOf: LocalDate?) throws(ServiceError) -> Lookup {
        try SupportedDates.check(asOf, "the as-of day")
        return try ServiceError.wrapping {
            let queries = AdminQueries(connection: connection)
            if let asOf {
                guard try queries.hasNights(userID: user.id) else { return .absent(try absenceReason(of: user)) }
                let summaries = try Self.summaries(
                    userID: user.id, goals: user.goals, asOf: asOf, horizons: [horizon], rules: rules,
                    nights: NightStore(connection: connection))
                return summaries.first.map(Lookup.found) ?? .absent(.noStoredSummary)
            }
            if let stored = try SummaryStore(connection: connection).summary(userID: user.id, horizon: horizon),
                try Self.isWorthShowing(hasNightData: stored.hasNightData, { try queries.hasNights(userID: user.id) })
            {
                return .found(stored)
            }
            return .absent(try absenceReason(of: user))
        }
    }

    /// A stored summary as JSON text, or why there is none.
    public enum TextLookup: Sendable, Hashable {
        /// The JSON text the rollup stored (``LedgerStore/SummaryStore/StoredText/json``).
        case found([UInt8])
        /// Why there is none.
        case absent(Absence)
    }

    /// The stored summary of `horizon` for `user` as JSON text, not decoded: the answer
    /// of ``summary(for:horizon:asOf:)`` without `asOf` (the same summary, or the same
    /// absence), for a caller that only sends it on.
    public func storedText(for user: User, horizon: Horizon) throws(ServiceError) -> TextLookup {
        try ServiceError.wrapping {
            let row = try SummaryStore(connection: connection).storedText(userID: user.id, horizon: horizon)
            if let row,
                try Self.isWorthShowing(
                    hasNightData: row.hasNightData,
                    { try AdminQueries(connection: connection).hasNights(userID: user.id) })
            {
                return .found(row.json)
            }
            return .absent(try absenceReason(of: user))
        }
    }

    /// The one rule for whether a stored summary is shown: it holds night data of its own
    /// (``SleepCore/Summary/hasNightData``), or the person has nights at all (a horizon
    /// whose window holds none shows as empty rather than as missing). Otherwise the
    /// answer is an ``Absence``, decided by ``absence(of:)`` alone.
    package static func isWorthShowing(hasNightData: Bool, _ userHasNights: () throws -> Bool) rethrows -> Bool {
        try hasNightData || userHasNights()
    }

    /// Why `user` has no summary: never rolled up, nothing imported, no nights formed, or
    /// no stored summary of this horizon.
    public func absence(of user: User) throws(ServiceError) -> Absence {
        try ServiceError.wrapping { try absenceReason(of: user) }
    }

    private func absenceReason(of user: User) throws -> Absence {
        if try RollupStateStore(connection: connection).lastRollup(userID: user.id).at == nil {
            return .neverRolledUp
        }
        let queries = AdminQueries(connection: connection)
        if try !queries.hasNights(userID: user.id) {
            return try queries.hasSamples(userID: user.id) ? .samplesWithoutNights : .noSamples
        }
        return .noStoredSummary
    }

    /// The user's stored nights waking from `first` through `last` (open when `nil`).
    /// Days outside `LocalDate.supportedRange` are refused (``ServiceError/Kind/invalidInput``).
    public func nights(for user: User, from first: LocalDate? = nil, through last: LocalDate? = nil)
        throws(ServiceError) -> [Night]
    {
        try SupportedDates.check(first, "the first wake day")
        try SupportedDates.check(last, "the last wake day")
        return try ServiceError.wrapping {
            try NightStore(connection: connection).nights(userID: user.id, from: first, through: last)
        }
    }

    /// The user's stored naps waking from `first` through `last` (open when `nil`).
    /// Days outside `LocalDate.supportedRange` are refused (``ServiceError/Kind/invalidInput``).
    public func naps(for user: User, from first: LocalDate? = nil, through last: LocalDate? = nil)
        throws(ServiceError) -> [Nap]
    {
        try SupportedDates.check(first, "the first wake day")
        try SupportedDates.check(last, "the last wake day")
        return try ServiceError.wrapping {
            try NightStore(connection: connection).naps(userID: user.id, from: first, through: last)
        }
    }

    /// Whether the rollup stored any night for the user.
    public func hasNights(_ user: User) throws(ServiceError) -> Bool {
        try ServiceError.wrapping { try AdminQueries(connection: connection).hasNights(userID: user.id) }
    }

    /// When the rollup last wrote the user's results (epoch seconds; `nil` when never),
    /// and whether new samples or changed settings wait for the next rollup.
    public func lastRollup(of user: User) throws(ServiceError) -> (at: Int64?, isStale: Bool) {
        try ServiceError.wrapping {
            let state = try RollupStateStore(connection: connection).lastRollup(userID: user.id)
            return (state.at, state.isStale)
        }
    }

    /// The summaries of `horizons` as of `asOf` for one user: the one way summaries are
    /// computed, by the rollup and on the fly. Reads the nights `LookBack` names from
    /// `nights`; nights the caller has just built and holds in `rebuilt` (every night from
    /// `from` on, or all of them when `from` is `nil`) are used instead of reading them.
    package static func summaries(
        userID: Int64, goals: SleepGoals, asOf: LocalDate, horizons: [Horizon], rules: MetricRules,
        nights store: NightStore, rebuilt: (from: LocalDate?, nights: [Night])? = nil
    ) throws -> [Summary] {
        try summariesAndNights(
            userID: userID, goals: goals, asOf: asOf, horizons: horizons, rules: rules, nights: store, rebuilt: rebuilt
        ).summaries
    }

    /// ``summaries(userID:goals:asOf:horizons:rules:nights:rebuilt:)`` and the nights they
    /// were computed from, read from `readingFrom` on when that is earlier than the
    /// summaries need (the personal estimates' windows, `LookBack.personalNights`).
    package static func summariesAndNights(
        userID: Int64, goals: SleepGoals, asOf: LocalDate, horizons: [Horizon], rules: MetricRules,
        nights store: NightStore, rebuilt: (from: LocalDate?, nights: [Night])? = nil, readingFrom: LocalDate? = nil
    ) throws -> (summaries: [Summary], nights: [Night]) {
        let needed = LookBack.nights(for: horizons, asOf: asOf, rules: rules)
        var range = needed.wakeDays
        var first = readingFrom.map { min($0, range.first) } ?? range.first
        if goals.target == .estimatedNeed {
            // Each night's target is estimated from the 90 days before it.
            first = min(first, range.first.adding(days: -PersonalSleepRules.standard.needWindowDays))
        }
        range = WakeDayRange(first: first, last: range.last)
        var nights: [Night]
        if let rebuilt {
            nights = rebuilt.nights.filter { night in
                range.contains(night.wakeDay) && rebuilt.from.map { night.wakeDay >= $0 } ?? true
            }
            if let from = rebuilt.from, range.first < from {
                nights =
                    try store.nights(
                        userID: userID, from: range.first, through: min(range.last, from.adding(days: -1)),
                        segmentsFrom: needed.segmentsFrom) + nights
            }
        } else {
            nights = try store.nights(
                userID: userID, from: range.first, through: range.last, segmentsFrom: needed.segmentsFrom)
        }
        let builder = SummaryBuilder(nights: nights, goals: goals, rules: rules)
        return (horizons.map { builder.summary(horizon: $0, asOf: asOf) }, nights)
    }
}

extension Summary {
    /// Whether the summary holds night data of its own: tracked nights in its window, a
    /// rolling debt or a last night (what ``LedgerStore/SummaryStore/StoredText/hasNightData``
    /// reads from the headline columns written with it).
    var hasNightData: Bool { debt.trackedNights > 0 || rollingDebt != nil || lastNight != nil }
}
