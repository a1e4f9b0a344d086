import LedgerTestSupport
import PostgresClient
import Testing

/// libpq quotes a malformed connection string in its messages, password included; no
/// error or text the client makes from one shows the password.
@Suite("No password in connection errors")
struct ConnectionSecretTests {
    typealias Malformed = MalformedConnectionStrings

    @Test("connecting throws connectionFailed without the password", arguments: Malformed.cases)
    func connecting(_ malformed: Malformed.Case) throws {
        let error = try #require(throws: PostgresError.self) { try Connection(conninfo: malformed.conninfo) }
        #expect(error.kind == .connectionFailed)
        #expect(!error.message.isEmpty)
        for text in [error.description, error.debugDescription, error.message, "\(error)", String(reflecting: error)] {
            #expect(!Malformed.showsPassword(text), "\(text)")
        }
    }

    @Test("rewriting a parameter throws without the password, or gives a string to use", arguments: Malformed.cases)
    func settingParameter(_ malformed: Malformed.Case) {
        do {
            // Parsable: the result is a connection string to use, not a message.
            _ = try ConnectionString.settingParameter("user", to: "sleepledger_readonly", in: malformed.conninfo)
        } catch let error as PostgresError {
            #expect(error.kind == .invalidUse)
            #expect(error.message.hasPrefix("cannot parse the connection string: "))
            for text in [error.description, error.debugDescription] {
                #expect(!Malformed.showsPassword(text), "\(text)")
            }
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the redacted form never shows the password", arguments: Malformed.cases)
    func redacted(_ malformed: Malformed.Case) {
        let text = ConnectionString.redacted(malformed.conninfo)
        #expect(!Malformed.showsPassword(text), "\(text)")
    }

    @Test(
        "libpq's reason stays readable: option names and its own punctuation are kept, the password is ***",
        arguments: [
            (
                "postgresql://anna:\(Malformed.password)@[::1/ledger",
                #"end of string reached when looking for matching "]" in IPv6 host address in URI: "…""#
            ),
            (
                "host=/nonexistent password=\(Malformed.password) sslmode=\(Malformed.password)",
                #"invalid sslmode value: "***""#
            ),
            ("host=/nonexistent password", #"missing "=" after "password" in connection info string"#),
            ("postgresql://anna:\(Malformed.password)%zz@h/db", #"invalid percent-encoded token: "…""#),
            ("password='\(Malformed.password)", "unterminated quoted string in connection info string"),
        ])
    func readable(conninfo: String, expected: String) {
        let error = #expect(throws: PostgresError.self) { try Connection(conninfo: conninfo) }
        #expect(error?.message == expected)
    }

    @Test(
        "the passwords a string may hold are found, parsable or not",
        arguments: [
            ("postgresql://anna:p%40ss@h/db", ["p%40ss", "p@ss"]),
            ("postgresql://anna:pw@[::1/db", ["pw"]),
            ("host=h password = 'it\\'s' dbname=x", ["it\\'s", "it's"]),
            ("host=h sslpassword=key-pw", ["key-pw"]),
            ("host=h dbname=x", []),
        ])
    func secrets(conninfo: String, expected: [String]) {
        #expect(ConnectionString.secrets(in: conninfo).isSuperset(of: Set(expected)))
        if expected.isEmpty { #expect(ConnectionString.secrets(in: conninfo).isEmpty) }
    }
}
