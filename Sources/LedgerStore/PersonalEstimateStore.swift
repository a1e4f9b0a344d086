import Foundation
public import PostgresClient
public import SleepCore

/// Each person's need estimate and chronotype as of the last rollup (table
/// `personal_estimates`, migration 0024): the SleepCore documents as JSONB plus the
/// headline columns. One row per person, replaced by every rollup of that person
/// (``RollupStateStore/markRolledUp(userID:asOf:now:timeZone:need:chronotype:rulesVersion:)``,
/// in the statement that clears the person's marks).
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
