import Foundation
public import PostgresClient
public import SleepCore

/// Stores the horizon summaries the rollup computes (table `summaries`, migration 0003):
/// per user and horizon the ``SleepCore/Summary`` as JSONB (the shape of
/// docs/summary-json.md) plus headline columns, and reads them back.
public struct SummaryStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// The JSON text sent for `summary`. Keys are not sorted here: `jsonb` stores keys in
    /// its own canonical order, so equal summaries are stored (and read back) as equal
    /// bytes anyway, and sorting is a good part of the encoder's time.
    ///
    /// Written by ``StreamingJSONEncoder`` (the same JSON as `JSONEncoder`, several times
    /// faster); should a future field use a container shape that encoder does not write,
    /// `JSONEncoder` writes it instead.
    public static func jsonText(of summary: Summary) throws -> String {
        do {
            return try StreamingJSONEncoder.text(of: summary)
        } catch {
            throw StoreError(.invalidValue, "a summary could not be encoded", statement: "summaries.write")
        }
    }

    /// Replaces all of the user's summaries by `summaries` (normally the six horizons of
    /// one as-of day), stamped with `computedAt` (epoch seconds). Returns the rows written.
    @discardableResult
    public func replace(userID: Int64, summaries: [Summary], computedAt: Int64) throws -> Int {
        try connection.transaction { _ in
            try write(userID: userID, summaries: summaries, computedAt: computedAt)
        }
    }

    /// ``replace(userID:summaries:computedAt:)`` without a transaction (or savepoint) of
    /// its own: for callers already inside the transaction that should hold the change.
    public func write(userID: Int64, summaries: [Summary], computedAt: Int64) throws -> Int {
        let horizons = Set(summaries.map(\.horizon))
        if horizons.count != Horizon.allCases.count {
            // Not the usual six: drop the rows the new set does not replace.
            try connection.execute(
                "DELETE FROM summaries WHERE user_id = $1 AND NOT (horizon = ANY ($2::text[]))",
                [.int64(userID), .text(NightStore.arrayLiteral(horizons.map(\.rawValue).sorted()))],
                name: "summaries.deleteOthers")
        }
        guard !summaries.isEmpty else { return 0 }
        // One upsert for all rows: one round trip, and no delete-then-insert churn.
        var placeholders: [String] = []
        var parameters: [SQLValue?] = []
        for summary in summaries {
            let base = parameters.count
            placeholders.append("(" + (1...13).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
            parameters += [
                .int64(userID), .text(summary.horizon.rawValue), .date(summary.asOf),
                .int64(summary.debt.debtSeconds), .int64(summary.debt.netBalanceSeconds),
                .text(summary.debt.severity.rawValue), .int(summary.score.overall),
                .text(summary.score.grade.rawValue), .int(summary.debt.trackedNights),
                summary.lastNight.map { .date($0.wakeDay) }, summary.lastNight.map { .int64($0.asleepSeconds) },
                .json(try SummaryStore.jsonText(of: summary)), .timestamp(epochSeconds: computedAt),
            ]
        }
        let result = try connection.executePrepared(
            """
            INSERT INTO summaries AS s (user_id, horizon, as_of, debt_seconds, net_balance_seconds, severity,
                score, grade, tracked_nights, last_night_wake_day, last_night_asleep_seconds, summary, computed_at)
            SELECT v.user_id::bigint, v.horizon, v.as_of::date, v.debt::bigint, v.net::bigint, v.severity,
                v.score::integer, v.grade, v.tracked::integer, v.last_day::date, v.last_asleep::integer,
                v.summary::jsonb, v.computed_at::timestamptz
            FROM (VALUES \(placeholders.joined(separator: ", ")))
                AS v (user_id, horizon, as_of, debt, net, severity, score, grade, tracked, last_day, last_asleep,
                      summary, computed_at)
            ON CONFLICT (user_id, horizon) DO UPDATE SET
                as_of = EXCLUDED.as_of, debt_seconds = EXCLUDED.debt_seconds,
                net_balance_seconds = EXCLUDED.net_balance_seconds, severity = EXCLUDED.severity,
                score = EXCLUDED.score, grade = EXCLUDED.grade, tracked_nights = EXCLUDED.tracked_nights,
                last_night_wake_day = EXCLUDED.last_night_wake_day,
                last_night_asleep_seconds = EXCLUDED.last_night_asleep_seconds, summary = EXCLUDED.summary,
                computed_at = EXCLUDED.computed_at
            """, parameters, name: "summaries.upsert")
        return result.affectedRows
    }

    /// The user's stored summary for `horizon`, decoded from its JSON, or `nil` when the
    /// rollup has not written one. A prepared statement (`GET /api/v1/summary` reads it).
    public func summary(userID: Int64, horizon: Horizon) throws -> Summary? {
        guard
            let text = try connection.executePrepared(
                "SELECT summary FROM summaries WHERE user_id = $1 AND horizon = $2",
                [.int64(userID), .text(horizon.rawValue)], name: "summaries.read"
            ).first?.string(0)
        else { return nil }
        do {
            return try JSONDecoder().decode(Summary.self, from: Data(text.utf8))
        } catch {
            throw StoreError(
                .decodingFailed, "the stored \(horizon.rawValue) summary of user \(userID) does not decode",
                statement: "summaries.read")
        }
    }

    /// A stored summary as its JSON text, not decoded: what the API sends for it.
    public struct StoredText: Sendable, Hashable {
        /// The JSON text, as PostgreSQL prints the stored `jsonb` (the same document as
        /// the encoder wrote; keys in `jsonb`'s order, a space after each `:` and `,`).
        public var json: [UInt8]
        /// Whether the summary counts nights, has a rolling debt or a last night: what
        /// decides, without reading the nights, that it is worth showing
        /// (``SleepCore/Summary``'s `debt.trackedNights > 0`, `rollingDebt != nil` or
        /// `lastNight != nil`; the first and last from the headline columns written with
        /// it).
        public var hasNightData: Bool
    }

    /// The user's stored summary for `horizon` as its JSON text, or `nil` when the rollup
    /// has not written one.
    public func storedText(userID: Int64, horizon: Horizon) throws -> StoredText? {
        let statement = Self.storedTextStatement(userID: userID, horizon: horizon)
        return try Self.storedText(
            in: connection.executePrepared(statement.sql, statement.parameters, name: statement.name))
    }

    /// ``storedText(userID:horizon:)``'s statement, for a caller that sends it with others
    /// in one round trip; read its result with ``storedText(in:)``.
    public static func storedTextStatement(userID: Int64, horizon: Horizon) -> PipelinedStatement {
        PipelinedStatement(
            """
            SELECT summary, tracked_nights > 0 OR last_night_wake_day IS NOT NULL OR summary ? 'rolling_debt'
            FROM summaries WHERE user_id = $1 AND horizon = $2
            """, [.int64(userID), .text(horizon.rawValue)], name: "summaries.readText")
    }

    /// ``storedTextStatement(userID:horizon:)`` for the user the transaction's setting
    /// names (``DatabaseRoles/currentUserID``): no row when it names no one.
    public static func storedTextStatement(horizon: Horizon) -> PipelinedStatement {
        PipelinedStatement(
            """
            SELECT summary, tracked_nights > 0 OR last_night_wake_day IS NOT NULL OR summary ? 'rolling_debt'
            FROM summaries WHERE user_id = \(DatabaseRoles.currentUserID) AND horizon = $1
            """, [.text(horizon.rawValue)], name: "summaries.readTextOfCurrent")
    }

    /// The summary in the result of ``storedTextStatement(userID:horizon:)``, or `nil`.
    public static func storedText(in result: QueryResult) throws -> StoredText? {
        guard let row = result.first else { return nil }
        guard let text = try row.string(0), let hasNightData = try row.bool(1) else {
            throw StoreError(.decodingFailed, "a summaries row has a NULL column", statement: "summaries.readText")
        }
        return StoredText(json: Array(text.utf8), hasNightData: hasNightData)
    }

    /// The headline rows of every user's summary for `horizon` (all horizons when `nil`),
    /// ordered by handle and horizon.
    public func headlines(horizon: Horizon? = nil) throws -> [SummaryHeadline] {
        let result = try connection.execute(
            """
            SELECT s.user_id, u.handle, s.horizon, s.as_of, s.debt_seconds, s.net_balance_seconds, s.severity,
                   s.score, s.grade, s.tracked_nights, s.last_night_wake_day, s.last_night_asleep_seconds,
                   s.computed_at
            FROM summaries s JOIN users u ON u.id = s.user_id
            WHERE $1::text IS NULL OR s.horizon = $1
            ORDER BY u.handle_key, u.id,
                     array_position(ARRAY['daily','weekly','monthly','yearly','5y','10y'], s.horizon)
            """, [horizon.map { .text($0.rawValue) }], name: "summaries.headlines")
        return try result.rows.map { row in
            guard let userID = try row.int64(0), let handle = try row.string(1),
                let horizon = try row.string(2).flatMap(Horizon.init(rawValue:)), let asOf = try row.localDate(3),
                let debt = try row.int64(4), let net = try row.int64(5),
                let severity = try row.string(6).flatMap(DebtSeverity.init(rawValue:)),
                let score = try row.int(7), let grade = try row.string(8).flatMap(SleepGrade.init(rawValue:)),
                let tracked = try row.int(9), let computedAt = try row.epochSeconds(12)
            else {
                throw StoreError(
                    .decodingFailed, "a summaries row has a NULL or unknown value", statement: "summaries.headlines")
            }
            return SummaryHeadline(
                userID: userID, handle: handle, horizon: horizon, asOf: asOf, debtSeconds: debt,
                netBalanceSeconds: net, severity: severity, score: score, grade: grade, trackedNights: tracked,
                lastNightWakeDay: try row.localDate(10), lastNightAsleepSeconds: try row.int64(11),
                computedAt: computedAt)
        }
    }
}
