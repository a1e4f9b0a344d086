import Foundation
import LedgerCLI
import LedgerTestSupport
import PostgresClient
import Testing

/// What the tools print for a database failure never quotes a stored value; the
/// operator who asks (`SLEEPLEDGER_DEBUG=1`) gets the detail on a second line.
@Suite("Log-safe messages of the tools")
struct LogSafetyCommandTests {
    @Test("a constraint violation on a row holding a recognisable value prints no value")
    func constraintViolationPrintsNoValue() throws {
        let environment = try migratedEnvironment()
        let secret = "SECRET-NOTE-4711"
        #expect(
            runTool(["user", "add", "anna", "--time-zone", "Europe/Berlin"], environment: environment).0 == .success)
        // A note nobody sees and a rule the update breaks: the server's DETAIL line
        // ("Failing row contains (...)") would show the whole row.
        let connection = try Connection(conninfo: try #require(environment["DATABASE_URL"]))
        defer { connection.close() }
        try connection.execute("ALTER TABLE users ADD COLUMN note text DEFAULT '\(secret)'")
        try connection.execute(
            "ALTER TABLE users ADD CONSTRAINT no_nine_hour_targets CHECK (target_seconds <> 32400)")

        let (code, captured) = runTool(["user", "set", "anna", "--target", "9h"], environment: environment)
        #expect(code == .dataError)
        #expect(captured.printed.isEmpty)
        #expect(
            captured.errorText
                == "sleepledger: constraintViolated: new row for relation \"users\" violates check constraint \"no_nine_hour_targets\" [SQLSTATE 23514] (statement users.update) (table users) (constraint no_nine_hour_targets)\n"
        )

        var debugging = environment
        debugging["SLEEPLEDGER_DEBUG"] = "1"
        let (debugCode, debugCaptured) = runTool(["user", "set", "anna", "--target", "9h"], environment: debugging)
        #expect(debugCode == .dataError)
        let lines = debugCaptured.errorText.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first.map(String.init) == captured.errorText.trimmingCharacters(in: .newlines))
        #expect(lines.last?.hasPrefix("sleepledger: debug: ") == true)
        #expect(lines.last?.contains(secret) == true)
    }
}
