import Foundation
public import PostgresClient
public import SleepCore

/// Each person's need estimate and chronotype as of the last rollup (table
/// `personal_estimates`, migration 0024): the SleepCore documents as JSONB plus the
/// headline columns. One row per person, replaced by every rollup of that person.
public struct PersonalEstimateStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// One person's stored estimates.
    public struct Stored: Sendable, Hashable {
        /// The as-of day they were computed for.
        public var asOf: LocalDate
        /// The rules version they were computed with.
        public var rulesVersion: Int
        /// The need estimate.
        public var need: SleepNeedEstimate
        /// The chronotype.
        public var chronotype: Chronotype
    }

    /// Replaces the person's row; call inside the rollup's transaction.
    public func write(
        userID: Int64, asOf: LocalDate, need: SleepNeedEstimate, chronotype: Chronotype, computedAt: Int64
    ) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let needText: String
        let chronotypeText: String
        do {
            needText = String(decoding: try encoder.encode(need), as: UTF8.self)
            chronotypeText = String(decoding: try encoder.encode(chronotype), as: UTF8.self)
        } catch {
            throw StoreError(.invalidValue, "an estimate could not be encoded", statement: "personalEstimates.write")
        }
        try connection.executePrepared(
            """
            INSERT INTO personal_estimates
                (user_id, as_of, rules_version, need_seconds, need_method, msfsc_seconds, need, chronotype, computed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (user_id) DO UPDATE SET as_of = excluded.as_of, rules_version = excluded.rules_version,
                need_seconds = excluded.need_seconds, need_method = excluded.need_method,
                msfsc_seconds = excluded.msfsc_seconds, need = excluded.need, chronotype = excluded.chronotype,
                computed_at = excluded.computed_at
            """,
            [
                .int64(userID), .date(asOf), .int(PersonalSleepRules.version), .int64(need.needSeconds),
                .text(need.method.rawValue), chronotype.msfscSeconds.map { .int64($0) }, .json(needText),
                .json(chronotypeText), .timestamp(epochSeconds: computedAt),
            ], name: "personalEstimates.write")
    }

    /// The person's stored estimates, or `nil` when the rollup has not computed them.
    public func read(userID: Int64) throws -> Stored? {
        guard
            let row = try connection.execute(
                "SELECT as_of, rules_version, need::text, chronotype::text FROM personal_estimates WHERE user_id = $1",
                [.int64(userID)], name: "personalEstimates.read"
            ).first
        else { return nil }
        guard let asOf = try row.localDate(0), let version = try row.int64(1), let needText = try row.string(2),
            let chronotypeText = try row.string(3)
        else {
            throw StoreError(
                .decodingFailed, "a personal_estimates row has a NULL column", statement: "personalEstimates.read")
        }
        let decoder = JSONDecoder()
        do {
            return Stored(
                asOf: asOf, rulesVersion: Int(version),
                need: try decoder.decode(SleepNeedEstimate.self, from: Data(needText.utf8)),
                chronotype: try decoder.decode(Chronotype.self, from: Data(chronotypeText.utf8)))
        } catch {
            throw StoreError(
                .decodingFailed, "a stored estimate is not in the expected shape", statement: "personalEstimates.read")
        }
    }
}
