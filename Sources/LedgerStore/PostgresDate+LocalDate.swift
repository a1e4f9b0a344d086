public import PostgresClient
public import SleepCore

extension SQLValue {
    /// A `date` parameter from a SleepCore day.
    public static func date(_ day: LocalDate) -> SQLValue {
        .date(PostgresDate(year: day.year, month: day.month, day: day.day))
    }
}

extension Row {
    /// A `date` column as a SleepCore day.
    public func localDate(_ column: String) throws -> LocalDate? {
        try date(column).map(LocalDate.init(postgresDate:))
    }

    /// A `date` column as a SleepCore day, by index.
    public func localDate(_ index: Int) throws -> LocalDate? {
        try date(index).map(LocalDate.init(postgresDate:))
    }
}

extension BinaryRow {
    /// A binary `date` column as a SleepCore day.
    public func localDate(_ column: Int32) throws -> LocalDate? {
        try date(column).map(LocalDate.init(postgresDate:))
    }
}

extension LocalDate {
    /// The same day as the client's date value.
    init(postgresDate date: PostgresDate) {
        self.init(year: date.year, month: date.month, day: date.day)
    }
}
