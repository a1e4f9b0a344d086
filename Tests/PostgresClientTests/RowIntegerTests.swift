import Testing

@testable import PostgresClient

/// `Row` reads integers from their bytes; it must agree with the standard library's
/// `Int64(String)` on every form, including the limits and what is not an integer.
struct RowIntegerTests {
    @Test(arguments: [
        "0", "-0", "7", "42", "-42", "+7", "1709272800", "-86400",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "99999999999999999999", "00000000000000000000001", "", "-", "+", "1a", " 1", "1 ", "1.0", "--1", "١",
    ])
    func agreesWithTheStandardLibrary(_ text: String) {
        #expect(Row.parseInteger(text) == Int64(text))
    }

    @Test func readsThroughTheRowAccessors() throws {
        let row = Row(
            values: ["123", nil, "-9223372036854775808", "x"],
            columnIndex: Row.ColumnIndex(["a", "b", "c", "d"]))
        #expect(try row.int64("a") == 123)
        #expect(try row.int(0) == 123)
        #expect(try row.int64("b") == nil)
        #expect(try row.int64(2) == Int64.min)
        #expect(throws: PostgresError.self) { try row.int64("d") }
    }
}
