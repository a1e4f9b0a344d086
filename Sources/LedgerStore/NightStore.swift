public import PostgresClient
public import SleepCore

/// Stores the nights and naps the rollup builds (tables `nights` and `naps`, migration
/// 0003) and reads them back as exact ``SleepCore/Night`` and ``SleepCore/Nap`` values.
///
/// A night is one row with one column per field; its asleep intervals are a flat
/// `bigint[]` (`{start,end,start,end,...}`, migration 0006) and its stage segments a
/// compact JSON array (`[[stage, start, end], ...]`), both in epoch seconds. Writes go
/// through `COPY`; call them inside the transaction that should make them visible.
public struct NightStore {
    /// The connection every call uses.
    public let connection: Connection

    /// Whether ``write(userID:from:nights:naps:)`` copies rows through a temporary staging
    /// table (``isHeldToRowSecurity(_:)``) rather than straight into the tables.
    public let writesThroughStaging: Bool

    /// Creates a store over `connection`; `writesThroughStaging` when the connection's role
    /// is held to row-level security (PostgreSQL then refuses `COPY` into the tables).
    public init(connection: Connection, writesThroughStaging: Bool = false) {
        self.connection = connection
        self.writesThroughStaging = writesThroughStaging
    }

    /// Whether row-level security holds the connection's role on the nights table (any
    /// role but a superuser or one with `BYPASSRLS`: the tables' security is forced), so
    /// that writes must go through a staging table. One round trip; ask once a session.
    public static func isHeldToRowSecurity(_ connection: Connection) throws -> Bool {
        try connection.execute("SELECT row_security_active('nights')", name: "nights.rowSecurityActive").single()
            .bool(0) ?? true
    }

    static let nightColumns =
        "wake_day, time_zone, bedtime, onset, wake, asleep_seconds, time_in_bed_seconds, awake_seconds, "
        + "wake_ups, latency_seconds, deep_seconds, rem_seconds, core_seconds, unspecified_seconds, "
        + "efficiency, has_stage_data, source, fragment_count, set_aside_sources, asleep_intervals, stage_segments"

    /// Replaces the user's nights and naps with wake day on or after `firstWakeDay` (all of
    /// them when `nil`) by `nights` and `naps`; values waking before `firstWakeDay` are
    /// ignored. Earlier rows are left alone. Returns the numbers of nights and naps written.
    @discardableResult
    public func replace(
        userID: Int64, from firstWakeDay: LocalDate?, nights: [Night], naps: [Nap],
        confidences: [NightConfidence]? = nil
    ) throws -> (nights: Int, naps: Int) {
        try connection.transaction { _ in
            try write(userID: userID, from: firstWakeDay, nights: nights, naps: naps, confidences: confidences)
        }
    }

    /// ``replace(userID:from:nights:naps:)`` without a transaction (or savepoint) of its
    /// own: for callers already inside the transaction that should hold the change.
    /// `confidences`, when given, holds each night's confidence in the order of `nights`
    /// (issue 24; stored in the `confidence` columns of migration 0024, NULL without).
    public func write(
        userID: Int64, from firstWakeDay: LocalDate?, nights: [Night], naps: [Nap],
        confidences: [NightConfidence]? = nil
    ) throws -> (nights: Int, naps: Int) {
        let keep = { (night: Night) in firstWakeDay.map { night.wakeDay >= $0 } ?? true }
        let keptNights = nights.filter(keep)
        let keptConfidences: [NightConfidence]? = confidences.map { all in
            zip(nights, all).filter { keep($0.0) }.map(\.1)
        }
        let keptNaps = naps.filter { nap in firstWakeDay.map { nap.wakeDay >= $0 } ?? true }
        do {
            // One statement (one round trip) for both tables, prepared in two forms (every
            // wake day, or from one on), each with its own plan.
            if let firstWakeDay {
                try connection.executePrepared(
                    """
                    WITH removed_nights AS (DELETE FROM nights WHERE user_id = $1 AND wake_day >= $2)
                    DELETE FROM naps WHERE user_id = $1 AND wake_day >= $2
                    """, [.int64(userID), .date(firstWakeDay)], name: "nightsAndNaps.delete")
            } else {
                try connection.executePrepared(
                    """
                    WITH removed_nights AS (DELETE FROM nights WHERE user_id = $1)
                    DELETE FROM naps WHERE user_id = $1
                    """, [.int64(userID)], name: "nightsAndNaps.delete")
            }
            if !keptNights.isEmpty, let keptConfidences, keptConfidences.count == keptNights.count {
                try copyRows(
                    "nights", columns: "user_id, \(NightStore.nightColumns), \(NightStore.confidenceColumns)"
                ) { writer in
                    for (night, confidence) in zip(keptNights, keptConfidences) {
                        try writer.writeRow(
                            NightStore.values(of: night, userID: userID) + NightStore.values(of: confidence))
                    }
                }
            } else if !keptNights.isEmpty {
                try copyRows("nights", columns: "user_id, \(NightStore.nightColumns)") { writer in
                    for night in keptNights { try writer.writeRow(NightStore.values(of: night, userID: userID)) }
                }
            }
            if !keptNaps.isEmpty {
                try copyRows(
                    "naps", columns: "user_id, start_at, end_at, wake_day, time_zone, source, asleep_seconds"
                ) { writer in
                    for nap in keptNaps {
                        try writer.writeRow(
                            [
                                .int64(userID), .timestamp(epochSeconds: nap.start), .timestamp(epochSeconds: nap.end),
                                .date(nap.wakeDay), .text(nap.timeZoneIdentifier), .text(nap.source),
                                .int64(nap.asleepSeconds),
                            ] as [SQLValue?])
                    }
                }
            }
            return (keptNights.count, keptNaps.count)
        }
    }

    /// Writes rows into `table` through `COPY`: straight in, or with ``writesThroughStaging``
    /// by way of a temporary table of the same columns. PostgreSQL refuses `COPY FROM`
    /// into a table under row-level security for any role held to it, which
    /// `sleepledger_app` and `sleepledger_owner` are (the tables' security is forced), so
    /// the rows are then copied into a temporary `<table>_staging` (no security; dropped
    /// when the transaction ends) and inserted from there in one statement, which the
    /// policies check as any insert. The session keeps no temporary table: dropping one
    /// when the session ends is a commit, which on a primary with a synchronous standby
    /// waits for it, and during a switchover (the standby being promoted) waits forever,
    /// holding up the old primary's shutdown (docs/reliability.md, "Failover").
    private func copyRows(
        _ table: String, columns: String, _ rows: (CopyWriter) throws -> Void
    ) throws {
        guard writesThroughStaging else {
            try connection.copyIn("COPY \(table) (\(columns)) FROM STDIN", name: "\(table).copy", rows)
            return
        }
        try connection.execute(
            "CREATE TEMP TABLE IF NOT EXISTS \(table)_staging (LIKE \(table)) ON COMMIT DROP",
            name: "\(table).staging")
        try connection.copyIn(
            "COPY \(table)_staging (\(columns)) FROM STDIN", name: "\(table).copyStaged", rows)
        // Not prepared: a plan would outlive the temporary table when a transaction that
        // created it rolls back.
        try connection.execute(
            "INSERT INTO \(table) (\(columns)) SELECT \(columns) FROM \(table)_staging", name: "\(table).fromStaging")
    }

    /// The user's nights waking from `first` through `last` (either bound open when `nil`),
    /// sorted by wake day, each with its stage segments.
    public func nights(userID: Int64, from first: LocalDate? = nil, through last: LocalDate? = nil) throws
        -> [Night]
    {
        try nights(userID: userID, from: first, through: last, segmentsFrom: nil)
    }

    /// The user's nights waking from `first` through `last` (either bound open when
    /// `nil`), sorted by wake day, with stage segments only for nights waking on or after
    /// `segmentsFrom` (all of them when `nil`) and empty for the others. A summary uses
    /// segments only for its last night (see `LookBack.nights(for:asOf:rules:)`), and
    /// reading ten years of segments each night would be most of the nightly refresh's
    /// work.
    ///
    /// Read in PostgreSQL's binary format: the server sends integers, instants and arrays
    /// as they are stored instead of formatting each as text, and nothing is parsed back
    /// from text here (this read is most of a nightly refresh).
    public func nights(userID: Int64, from first: LocalDate?, through last: LocalDate?, segmentsFrom: LocalDate?)
        throws -> [Night]
    {
        var nights: [Night] = []
        try connection.executePreparedBinary(
            NightStore.readSQL,
            [
                .int64(userID), first.map { .date($0) } ?? Self.unbounded, last.map { .date($0) },
                segmentsFrom.map { .date($0) } ?? Self.unbounded,
            ], name: "nights.read"
        ) { row in
            nights.append(try NightStore.night(from: row))
        }
        return nights
    }

    /// The earliest wake day of the user's nights after `day` and on or before `last`
    /// (open when `nil`), or `nil` when there is none: where the next page of a listing
    /// starts.
    public func firstWakeDay(userID: Int64, after day: LocalDate, through last: LocalDate?) throws -> LocalDate? {
        try connection.execute(
            """
            SELECT min(wake_day) FROM nights
            WHERE user_id = $1 AND wake_day > $2 AND ($3::date IS NULL OR wake_day <= $3)
            """, [.int64(userID), .date(day), last.map { .date($0) }], name: "nights.firstWakeDayAfter"
        ).first?.localDate(0)
    }

    /// The earliest wake day of the user's naps after `day`, or `nil` when there is none.
    public func firstNapWakeDay(userID: Int64, after day: LocalDate) throws -> LocalDate? {
        try connection.execute(
            "SELECT min(wake_day) FROM naps WHERE user_id = $1 AND wake_day > $2", [.int64(userID), .date(day)],
            name: "naps.firstWakeDayAfter"
        ).first?.localDate(0)
    }

    /// The `date` every wake day follows: one prepared statement serves bounded and
    /// unbounded reads without a NULL test on the indexed bound.
    private static let unbounded = SQLValue.text("-infinity")

    /// The nights read: ``nightColumns`` with stage segments only from `$4` on. Built
    /// once: the rollup runs it once per user.
    static let readSQL = """
        SELECT \(nightColumns.replacingOccurrences(
            of: ", stage_segments", with: ", CASE WHEN wake_day >= $4 THEN stage_segments ELSE '[]'::jsonb END"))
        FROM nights
        WHERE user_id = $1 AND wake_day >= $2 AND ($3::date IS NULL OR wake_day <= $3)
        ORDER BY wake_day
        """

    /// A night from a binary row of ``nightColumns`` (in that order).
    static func night(from row: BinaryRow) throws -> Night {
        func need<T>(_ value: T?, _ column: String) throws -> T {
            guard let value else {
                throw StoreError(.decodingFailed, "nights.\(column) is NULL", statement: "nights.read")
            }
            return value
        }
        func seconds(_ column: Int32, _ name: String) throws -> Int64 {
            Int64(try need(row.int32(column), name))
        }
        var setAside: [String] = []
        guard try row.arrayElements(18, { setAside.append(String(decoding: $0, as: UTF8.self)) }) else {
            throw StoreError(.decodingFailed, "nights.set_aside_sources is NULL", statement: "nights.read")
        }
        var bounds: [Int64] = []
        let hasIntervals = try row.arrayElements(19) { element in
            guard element.count == 8 else { throw row.malformed(19, "bigint[]") }
            bounds.append(Int64(bigEndian: element.loadUnaligned(as: Int64.self)))
        }
        guard hasIntervals, bounds.count % 2 == 0 else { throw malformed("asleep_intervals") }
        var intervals: [TimeSpan] = []
        intervals.reserveCapacity(bounds.count / 2)
        for index in stride(from: 0, to: bounds.count, by: 2) {
            intervals.append(TimeSpan(start: bounds[index], end: bounds[index + 1]))
        }
        let segmentTokens = try JSONTokens.scan(need(row.jsonText(20), "stage_segments"))
        return Night(
            wakeDay: try need(row.localDate(0), "wake_day"), timeZoneIdentifier: try need(row.string(1), "time_zone"),
            bedtime: try need(row.epochSeconds(2), "bedtime"), onset: try need(row.epochSeconds(3), "onset"),
            wake: try need(row.epochSeconds(4), "wake"), asleepSeconds: try seconds(5, "asleep_seconds"),
            timeInBedSeconds: try seconds(6, "time_in_bed_seconds"), awakeSeconds: try seconds(7, "awake_seconds"),
            wakeUps: Int(try need(row.int32(8), "wake_ups")), latencySeconds: try row.int32(9).map(Int64.init),
            stages: StageSeconds(
                deep: try seconds(10, "deep_seconds"), rem: try seconds(11, "rem_seconds"),
                core: try seconds(12, "core_seconds"), unspecified: try seconds(13, "unspecified_seconds")),
            efficiency: try need(row.double(14), "efficiency"),
            hasStageData: try need(row.bool(15), "has_stage_data"), source: try need(row.string(16), "source"),
            fragmentCount: Int(try need(row.int32(17), "fragment_count")), setAsideSources: setAside,
            asleepIntervals: intervals, stageSegments: try segments(from: segmentTokens))
    }

    /// The user's naps waking from `first` through `last` (either bound open when `nil`),
    /// sorted by start.
    public func naps(userID: Int64, from first: LocalDate? = nil, through last: LocalDate? = nil) throws -> [Nap] {
        let result = try connection.execute(
            """
            SELECT wake_day, time_zone, source, date_part('epoch', start_at)::bigint,
                   date_part('epoch', end_at)::bigint, asleep_seconds
            FROM naps
            WHERE user_id = $1 AND ($2::date IS NULL OR wake_day >= $2) AND ($3::date IS NULL OR wake_day <= $3)
            ORDER BY start_at
            """,
            [.int64(userID), first.map { .date($0) }, last.map { .date($0) }], name: "naps.read")
        return try result.rows.map { row in
            guard let wakeDay = try row.localDate(0), let zone = try row.string(1), let source = try row.string(2),
                let start = try row.int64(3), let end = try row.int64(4),
                let asleep = try row.int64(5)
            else { throw StoreError(.decodingFailed, "a naps row has a NULL column", statement: "naps.read") }
            return Nap(
                wakeDay: wakeDay, timeZoneIdentifier: zone, source: source, start: start, end: end,
                asleepSeconds: asleep)
        }
    }

    // MARK: Confidence

    /// The confidence columns of migration 0024, in ``values(of:)-(NightConfidence)`` order.
    static let confidenceColumns =
        "confidence, confidence_coverage, confidence_kind, confidence_agreement, confidence_truncated, "
        + "confidence_plausibility, confidence_fragmentation"

    static func values(of confidence: NightConfidence) -> [SQLValue?] {
        [
            .double(confidence.value), .double(confidence.coverage), .text(confidence.dataKind.rawValue),
            .double(confidence.agreement), .bool(confidence.isTruncated), .double(confidence.plausibility),
            .double(confidence.fragmentation),
        ]
    }

    /// Each stored night's confidence waking from `first` through `last` (either bound
    /// open when `nil`), by wake day; nights stored without one (before migration 0024's
    /// rebuild) are left out.
    public func confidences(userID: Int64, from first: LocalDate? = nil, through last: LocalDate? = nil) throws
        -> [LocalDate: NightConfidence]
    {
        let result = try connection.execute(
            """
            SELECT wake_day, \(NightStore.confidenceColumns) FROM nights
            WHERE user_id = $1 AND confidence IS NOT NULL
              AND ($2::date IS NULL OR wake_day >= $2) AND ($3::date IS NULL OR wake_day <= $3)
            """, [.int64(userID), first.map { .date($0) }, last.map { .date($0) }], name: "nights.confidence")
        var confidences: [LocalDate: NightConfidence] = [:]
        for row in result.rows {
            guard let day = try row.localDate(0), let coverage = try row.double(2), let kindName = try row.string(3),
                let kind = NightConfidence.DataKind(rawValue: kindName), let agreement = try row.double(4),
                let truncated = try row.bool(5), let plausibility = try row.double(6),
                let fragmentation = try row.double(7)
            else { throw Self.malformed("confidence") }
            confidences[day] = NightConfidence(
                coverage: coverage, dataKind: kind, agreement: agreement, isTruncated: truncated,
                plausibility: plausibility, fragmentation: fragmentation)
        }
        return confidences
    }

    // MARK: Row form

    static func values(of night: Night, userID: Int64) -> [SQLValue?] {
        [
            .int64(userID), .date(night.wakeDay), .text(night.timeZoneIdentifier),
            .timestamp(epochSeconds: night.bedtime), .timestamp(epochSeconds: night.onset),
            .timestamp(epochSeconds: night.wake), .int64(night.asleepSeconds), .int64(night.timeInBedSeconds),
            .int64(night.awakeSeconds), .int(night.wakeUps), night.latencySeconds.map { .int64($0) },
            .int64(night.stages.deep), .int64(night.stages.rem), .int64(night.stages.core),
            .int64(night.stages.unspecified), .double(night.efficiency), .bool(night.hasStageData),
            .text(night.source), .int(night.fragmentCount), .text(arrayLiteral(night.setAsideSources)),
            .text(intervalsArrayLiteral(night.asleepIntervals)), .json(segmentsJSON(night.stageSegments)),
        ]
    }

    /// `{"a","b"}`: a PostgreSQL text[] literal with every element quoted.
    static func arrayLiteral(_ elements: [String]) -> String {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for character in element {
                if character == "\"" || character == "\\" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }

    /// `{start,end,start,end,...}`: the intervals as a flat bigint[] literal.
    static func intervalsArrayLiteral(_ spans: [TimeSpan]) -> String {
        var text = "{"
        for (index, span) in spans.enumerated() {
            if index > 0 { text += "," }
            text += String(span.start)
            text += ","
            text += String(span.end)
        }
        return text + "}"
    }

    static func segmentsJSON(_ segments: [StageSegment]) -> String {
        "[" + segments.map { "[\"\($0.stage.rawValue)\",\($0.span.start),\($0.span.end)]" }.joined(separator: ",")
            + "]"
    }

    static func segments(from tokens: [JSONTokens.Token]) throws -> [StageSegment] {
        guard tokens.count % 3 == 0 else { throw malformed("stage_segments") }
        var segments: [StageSegment] = []
        segments.reserveCapacity(tokens.count / 3)
        var index = 0
        while index < tokens.count {
            guard case .string(let name) = tokens[index], let stage = SleepStage(rawValue: name),
                case .integer(let start) = tokens[index + 1], case .integer(let end) = tokens[index + 2]
            else { throw malformed("stage_segments") }
            segments.append(StageSegment(stage: stage, span: TimeSpan(start: start, end: end)))
            index += 3
        }
        return segments
    }

    private static func malformed(_ column: String) -> StoreError {
        StoreError(.decodingFailed, "nights.\(column) is not in the expected shape", statement: "nights.read")
    }
}
