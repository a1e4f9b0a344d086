public import PostgresClient
public import SleepCore

/// Reads the stored sleep samples (table `sleep_samples`) back as ``SleepCore/SleepSample``
/// values for the night builder. ``SampleLoader`` writes them.
public struct SampleStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Creates a store over `connection`.
    public init(connection: Connection) {
        self.connection = connection
    }

    // Two prepared forms, one per plan: all of the user's samples, or a range of the
    // primary key (user_id, end_at, ...) from the cutoff on.
    static let columnsSQL = """
        SELECT source, date_part('epoch', start_at)::bigint, date_part('epoch', end_at)::bigint, stage,
               time_zone, printed_utc_offset
        FROM sleep_samples
        """
    static let allSQL = columnsSQL + " WHERE user_id = $1"
    static let fromCutoffSQL = columnsSQL + " WHERE user_id = $1 AND end_at >= $2"

    /// The user's samples, only those ending at or after `cutoff` (epoch seconds) when given.
    public func samples(userID: Int64, endingAtOrAfter cutoff: Int64?) throws -> [SleepSample] {
        let rows: [Row]
        if let cutoff {
            rows = try connection.executePrepared(
                Self.fromCutoffSQL, [.int64(userID), .timestamp(epochSeconds: cutoff)], name: "samples.read"
            ).rows
        } else {
            rows = try connection.executePrepared(Self.allSQL, [.int64(userID)], name: "samples.read").rows
        }
        var samples: [SleepSample] = []
        samples.reserveCapacity(rows.count)
        for row in rows {
            guard let source = try row.string(0), let start = try row.int64(1), let end = try row.int64(2),
                let stage = try row.string(3).flatMap(SleepStage.init(rawValue:))
            else {
                throw StoreError(.decodingFailed, "a sleep_samples row is incomplete", statement: "samples.read")
            }
            samples.append(
                SleepSample(
                    source: source, start: start, end: end, stage: stage, timeZoneIdentifier: try row.string(4),
                    printedUTCOffset: try row.int64(5).map { Int32(clamping: $0) }))
        }
        return samples
    }

    /// Every sample of the transaction's current user (``DatabaseRoles/currentUserID``, set
    /// by the caller's transaction), ordered by start, end, source and stage, handed to
    /// `consume` one at a time as PostgreSQL sends them (`COPY ... TO STDOUT`): memory stays
    /// the same however many samples there are. When `consume` throws, the read is cancelled
    /// and the error rethrown. Returns how many samples were read.
    @discardableResult
    public func streamCurrentUserSamples(_ consume: (SleepSample) throws -> Void) throws -> Int {
        try connection.copyOut(Self.currentUserCopySQL, name: "samples.export") { row in
            let fields = CopyText.splitRow(row)
            guard fields.count == 6, let source = fields[0], let start = fields[1].flatMap({ Int64($0) }),
                let end = fields[2].flatMap({ Int64($0) }), let stage = fields[3].flatMap(SleepStage.init(rawValue:))
            else {
                throw StoreError(.decodingFailed, "a sleep_samples row is incomplete", statement: "samples.export")
            }
            try consume(
                SleepSample(
                    source: source, start: start, end: end, stage: stage, timeZoneIdentifier: fields[4],
                    printedUTCOffset: fields[5].flatMap { Int32($0) }))
        }
    }

    // COPY takes no parameters: the user is the transaction's setting, never a value in the text.
    static let currentUserCopySQL =
        "COPY (" + columnsSQL
        + " WHERE user_id = \(DatabaseRoles.currentUserID) ORDER BY start_at, end_at, source, stage) TO STDOUT"
}
