/// Connection strings that libpq refuses (or accepts and then cannot use), each holding
/// the recognisable ``password``, for the tests that prove no message shows it. Hosts are
/// socket folders that do not exist, so nothing reaches the network.
public enum MalformedConnectionStrings {
    /// The password in every case: recognisable, and in no message SleepLedger or libpq
    /// writes by itself.
    public static let password = "Hunter2SECRETpw"

    /// One malformed connection string and what is wrong with it.
    public struct Case: Sendable, CustomStringConvertible {
        /// What is wrong with it (the test's name for the case; never the string itself).
        public var name: String
        /// The connection string.
        public var conninfo: String
        /// The case's name.
        public var description: String { name }
    }

    /// The table: URLs and `key=value` strings that libpq quotes in its messages, and a
    /// few it refuses without quoting anything.
    public static let cases: [Case] = [
        Case(name: "URL with an unclosed [", conninfo: "postgresql://anna:\(password)@[::1/ledger"),
        Case(
            name: "URL with a bad percent escape in the database",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent%2Fsl/led%zzger"),
        Case(
            name: "URL with a bad percent escape in the password",
            conninfo: "postgresql://anna:\(password)%zz@%2Fnonexistent/ledger"),
        Case(
            name: "URL with a percent-encoded password and an unclosed [",
            conninfo: "postgresql://anna:\(percentEncoded(password))@[::1/ledger"),
        Case(
            name: "URL with a character after the ]", conninfo: "postgresql://anna:\(password)@[::1]x/ledger"),
        Case(
            name: "URL with an @ in the password and an unclosed [",
            conninfo: "postgresql://anna:\(password)@x@[::1/ledger"),
        Case(
            name: "URL with a double quote in the password and an unclosed [",
            conninfo: "postgresql://anna:\(password)\"q@[::1/ledger"),
        Case(
            name: "URL whose password was pasted into sslmode",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent/ledger?sslmode=\(password)"),
        Case(
            name: "URL whose password was pasted into the port",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent:\(password)/ledger"),
        Case(
            name: "URL with a query parameter missing its =",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent/ledger?application_name"),
        Case(
            name: "URL with an unknown query parameter",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent/ledger?bogus=1"),
        Case(
            name: "URL whose password was pasted into target_session_attrs",
            conninfo: "postgresql://anna:\(password)@%2Fnonexistent/ledger?target_session_attrs=\(password)"),
        Case(
            name: "key=value whose password was pasted into sslmode",
            conninfo: "host=/nonexistent password=\(password) sslmode=\(password)"),
        Case(
            name: "key=value whose password was pasted into the port",
            conninfo: "host=/nonexistent password=\(password) port=\(password)"),
        Case(
            name: "key=value with an unterminated quoted password",
            conninfo: "host=/nonexistent password='\(password)"),
        Case(name: "key=value with a password but no keyword", conninfo: "host=/nonexistent \(password)"),
        Case(
            name: "key=value with an unknown option",
            conninfo: "host=/nonexistent password=\(password) bogus=1"),
        Case(
            name: "key=value with an SSL key password pasted into sslmode",
            conninfo: "host=/nonexistent sslpassword=\(password) sslmode=\(password)"),
    ]

    /// ``password`` with every byte percent-encoded, as a URL may carry it.
    public static let encodedPassword = percentEncoded(password)

    /// Whether `text` shows the password, plain or percent-encoded.
    public static func showsPassword(_ text: String) -> Bool {
        text.contains(password) || text.contains(encodedPassword)
    }

    /// Every byte percent-encoded (`%48%75...`).
    static func percentEncoded(_ text: String) -> String {
        text.utf8.map { byte in
            let hex = Array("0123456789ABCDEF")
            return "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0f)])
        }.joined()
    }
}
