import Foundation
import LedgerCLI
import Testing

@Suite("sleepledger token")
struct TokenCommandTests {
    @Test("create prints the token once; list never shows the secret; revoke ends it")
    func createListRevoke() throws {
        let environment = try migratedEnvironment()
        #expect(runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment).0 == .success)
        var (code, captured) = runTool(
            ["token", "create", "--user", "anna", "--name", "phone", "--scope", "ingest"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        let token = captured.printed.trimmingCharacters(in: .newlines)
        #expect(token.wholeMatch(of: /sl_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/) != nil)
        let id = String(token.dropFirst(3).prefix(16))
        #expect(captured.errorText.contains("created ingest token \(id) \"phone\" for anna; it is shown only now"))

        (code, captured) = runTool(["token", "list", "--user", "anna", "--format", "csv"], environment: environment)
        #expect(code == .success)
        let lines = captured.printed.components(separatedBy: "\r\n")
        #expect(lines[0] == "id,name,scope,created_at,last_used_at,revoked_at")
        #expect(lines[1].hasPrefix("\(id),phone,ingest,"))
        #expect(!captured.printed.contains(String(token.dropFirst(20))))

        (code, captured) = runTool(["token", "revoke", "--user", "anna", id], environment: environment)
        #expect(code == .success)
        #expect(captured.printed == "revoked token \(id) of anna\n")
        (code, captured) = runTool(["token", "revoke", "--user", "anna", id], environment: environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger: no valid token with id \(id)\n")
    }

    @Test(
        "bad command lines are usage errors; an unknown user is 66",
        arguments: [
            (["token"], ExitCode.usage), (["token", "create"], .usage),
            (["token", "create", "--user", "anna", "--scope", "admin"], .usage),
            (["token", "revoke", "--user", "anna"], .usage), (["token", "create", "--user", "nobody"], .noInput),
            (["token", "revoke", "--user", "anna", "xyz"], .dataError),
        ])
    func errors(arguments: [String], code expected: ExitCode) throws {
        let environment = try migratedEnvironment()
        #expect(runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment).0 == .success)
        let (code, captured) = runTool(arguments, environment: environment)
        #expect(code == expected, "\(captured.errorText)")
        #expect(captured.printed.isEmpty)
    }
}
