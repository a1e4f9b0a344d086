import LedgerTestSupport
import PostgresClient
import Testing

/// Dates and instants of every year PostgreSQL stores travel both ways in its text form:
/// four-digit years as `YYYY-MM-DD`, later years with more digits, years before 1 as
/// `YYYY-MM-DD BC` (astronomical year 0 is 1 BC).
@Suite("Date and timestamp text for every year")
struct DateTextTests {
    static let cases: [(PostgresDate, String)] = [
        (PostgresDate(year: 1900, month: 1, day: 1), "1900-01-01"),
        (PostgresDate(year: 2199, month: 12, day: 31), "2199-12-31"),
        (PostgresDate(year: 1, month: 1, day: 1), "0001-01-01"),
        (PostgresDate(year: 9999, month: 12, day: 31), "9999-12-31"),
        (PostgresDate(year: 0, month: 2, day: 29), "0001-02-29 BC"),
        (PostgresDate(year: -1, month: 12, day: 31), "0002-12-31 BC"),
        (PostgresDate(year: -4712, month: 1, day: 1), "4713-01-01 BC"),
        (PostgresDate(year: 10_000, month: 1, day: 1), "10000-01-01"),
        (PostgresDate(year: 294_275, month: 6, day: 30), "294275-06-30"),
    ]

    @Test("dates are written as PostgreSQL writes them", arguments: cases)
    func text(date: PostgresDate, text: String) {
        #expect(date.description == text)
        #expect(SQLValue.date(date).textRepresentation == text)
        #expect(PostgresDate(isoText: text) == date)
    }

    @Test(
        "malformed and impossible dates do not parse",
        arguments: [
            "0000-01-01", "-0001-01-01", "2023-02-29", "0002-02-29 BC", "2024-13-01", "202-01-01", "2024-01-01 AD",
            "2024-01-01 BC ", "1234567890-01-01",
        ])
    func malformed(text: String) {
        #expect(PostgresDate(isoText: text) == nil)
    }

    @Test("dates and instants of every year round-trip through the server", arguments: cases.map(\.0))
    func roundTrip(date: PostgresDate) throws {
        let database = try TestDatabase.fresh()
        defer { try? TestDatabase.drop(database.name) }
        let connection = try Connection(conninfo: database.conninfo)
        defer { connection.close() }
        // make_date and make_timestamptz number years before 1 as BC years, negative.
        let serverYear = date.year <= 0 ? date.year - 1 : date.year
        let instant = Int64(date.daysSince1970) * 86_400 + 3723
        let row = try connection.execute(
            """
            SELECT $1::date AS sent, make_date($2, $3, $4) AS made, $1::date = make_date($2, $3, $4) AS same_day,
                   $5::timestamptz AS instant, make_timestamptz($2, $3, $4, 1, 2, 3, 'UTC') AS made_instant,
                   $5::timestamptz = make_timestamptz($2, $3, $4, 1, 2, 3, 'UTC') AS same_instant
            """,
            [
                .date(date), .int(serverYear), .int(date.month), .int(date.day),
                .timestamp(epochSeconds: instant),
            ]
        ).single()
        #expect(try row.bool("same_day") == true)
        #expect(try row.date("sent") == date)
        #expect(try row.date("made") == date)
        #expect(try row.bool("same_instant") == true)
        #expect(try row.epochSeconds("instant") == instant)
        #expect(try row.epochSeconds("made_instant") == instant)
    }
}
