import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import Testing

/// The environment for a tool run against a fresh, migrated test database.
func migratedEnvironment() throws -> [String: String] {
    let database = try TestDatabase.migrated()
    return [
        "DATABASE_URL": database.conninfo,
        "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder,
    ]
}

@Suite("sleepledger user")
struct UserCommandTests {
    @Test func addListSetRemove() throws {
        let environment = try migratedEnvironment()
        var (code, captured) = runTool(
            ["user", "add", "anna", "--time-zone", "Europe/Berlin", "--target", "7h30m", "--minimum", "7h"],
            environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed == "added anna (Europe/Berlin, target 7h 30m, minimum 7h)\n")

        (code, captured) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(code == .success)
        let lines = captured.printed.components(separatedBy: "\r\n")
        #expect(lines[0] == "handle,time_zone,target_seconds,minimum_seconds,created_at")
        #expect(lines[1].hasPrefix("anna,Europe/Berlin,27000,25200,"))

        (code, captured) = runTool(["user", "set", "anna", "--target", "8h"], environment: environment)
        #expect(code == .success)
        #expect(captured.printed == "updated anna (Europe/Berlin, target 8h, minimum 7h)\n")

        (code, captured) = runTool(["user", "remove", "anna", "--yes"], environment: environment)
        #expect(code == .success)
        (code, captured) = runTool(["user", "list", "--format", "json"], environment: environment)
        #expect(
            captured.printed.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]"
                || captured.printed.contains("[]"))
    }

    /// Each bad input is one line on standard error, exit 65, and nothing written.
    @Test(arguments: [
        (
            ["user", "add", "bob", "--time-zone", "Mars/Olympus"],
            "unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Berlin"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "6h", "--minimum", "7h"],
            "target sleep 6h is below the minimum 7h"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "eight"],
            "malformed duration 'eight' for --target; write it like 8h or 7h30m, at most 24h"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--minimum", "7"],
            "malformed duration '7' for --minimum; write it like 7h or 6h45m, at most 24h"
        ),
        (
            ["user", "add", "bob smith", "--time-zone", "UTC"],
            "invalid handle 'bob smith': use 1-64 letters, digits, '.', '_', '-' or '@'"
        ),
        // The database's limits, said before the database refuses: 0 < minimum <= target <= 24h.
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "30h"],
            "target sleep 30h is longer than a day; goals must satisfy 0 < minimum <= target <= 24h"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "30h", "--minimum", "25h"],
            "minimum acceptable sleep 25h is longer than a day; goals must satisfy 0 < minimum <= target <= 24h"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "50h"],
            "malformed duration '50h' for --target; write it like 8h or 7h30m, at most 24h"
        ),
        // A control character typed into a value is echoed as an escape: one line.
        (
            ["user", "add", "bob\nsmith", "--time-zone", "UTC"],
            "invalid handle 'bob\\nsmith': use 1-64 letters, digits, '.', '_', '-' or '@'"
        ),
        (
            ["user", "add", "bob", "--time-zone", "Europe/\u{1B}[2JBerlin"],
            "unknown time zone 'Europe/\\u{1B}[2JBerlin'; use an IANA name such as Europe/Berlin"
        ),
        (
            ["user", "add", "bob", "--time-zone", "UTC", "--target", "8\rh"],
            "malformed duration '8\\rh' for --target; write it like 8h or 7h30m, at most 24h"
        ),
    ])
    func badInputExits65AndWritesNothing(arguments: [String], message: String) throws {
        let environment = try migratedEnvironment()
        let (code, captured) = runTool(arguments, environment: environment)
        #expect(code == .dataError)
        #expect(captured.errorText == "sleepledger: \(message)\n")
        let (_, listed) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(listed.printed == "handle,time_zone,target_seconds,minimum_seconds,created_at\r\n")
    }

    @Test func duplicateHandleExits65() throws {
        let environment = try migratedEnvironment()
        #expect(runTool(["user", "add", "cleo", "--time-zone", "UTC"], environment: environment).0 == .success)
        let (code, captured) = runTool(["user", "add", "cleo", "--time-zone", "Asia/Tokyo"], environment: environment)
        #expect(code == .dataError)
        #expect(captured.errorText.contains("cleo"))
        #expect(captured.errorText.split(separator: "\n").count == 1)
        let (_, listed) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(listed.printed.contains("cleo,UTC,"))
        #expect(!listed.printed.contains("Asia/Tokyo"))
    }

    @Test func setBelowMinimumKeepsOldSettings() throws {
        let environment = try migratedEnvironment()
        _ = runTool(["user", "add", "dan", "--time-zone", "UTC"], environment: environment)
        let (code, _) = runTool(["user", "set", "dan", "--minimum", "9h"], environment: environment)
        #expect(code == .dataError)
        let (_, listed) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(listed.printed.contains("dan,UTC,28800,25200,"))
    }

    @Test(arguments: [
        (["user", "set", "nobody", "--target", "8h"], "'nobody'"),
        (["user", "remove", "nobody", "--yes"], "'nobody'"),
        (["user", "remove", "a\nb", "--yes"], "'a\\nb'"),
        (["user", "set", "a\r\n\tb", "--handle", "c"], "'a\\r\\n\\tb'"),
        (["user", "remove", "a\u{2028}b\u{85}", "--yes"], "'a\\u{2028}b\\u{85}'"),
    ])
    func unknownHandleExits66(arguments: [String], quoted: String) throws {
        let environment = try migratedEnvironment()
        let (code, captured) = runTool(arguments, environment: environment)
        #expect(code == .noInput)
        #expect(captured.errorText == "sleepledger: no user with handle \(quoted)\n")
    }

    /// Handles are one user in any letter case and any encoding of their accents,
    /// whatever the database's locale; `user set --handle` renames.
    @Test func handlesUnderTheUnicodeRule() throws {
        let environment = try migratedEnvironment()
        var (code, captured) = runTool(["user", "add", "Åsa", "--time-zone", "UTC"], environment: environment)
        #expect(code == .success)
        for other in ["åsa", "A\u{30A}SA"] {
            (code, captured) = runTool(["user", "add", other, "--time-zone", "UTC"], environment: environment)
            #expect(code == .dataError)
            #expect(captured.errorText == "sleepledger: a user with handle '\(other)' already exists\n")
        }
        (code, captured) = runTool(["user", "add", "jose\u{301}", "--time-zone", "UTC"], environment: environment)
        #expect(code == .success)
        #expect(
            captured.printed.unicodeScalars.elementsEqual(
                "added jos\u{E9} (UTC, target 8h, minimum 7h)\n".unicodeScalars))
        (code, captured) = runTool(["user", "add", "JOSÉ", "--time-zone", "UTC"], environment: environment)
        #expect(code == .dataError)

        (code, captured) = runTool(["user", "set", "åsa", "--handle", "Åsa-Maria"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed == "updated Åsa-Maria (UTC, target 8h, minimum 7h)\n")
        (code, captured) = runTool(["user", "set", "ÅSA-MARIA", "--handle", "josé"], environment: environment)
        #expect(code == .dataError)
        #expect(captured.errorText == "sleepledger: a user with handle 'josé' already exists\n")
        (code, captured) = runTool(["user", "set", "Åsa-Maria", "--handle", "x y"], environment: environment)
        #expect(code == .dataError)
        (code, captured) = runTool(["user", "set", "Åsa-Maria"], environment: environment)
        #expect(code == .usage)
        #expect(
            captured.errorText.hasPrefix(
                "sleepledger: user set needs --handle, --time-zone, --target, --minimum, --work-days or --target-mode\n"
            ))
        (code, captured) = runTool(
            ["user", "set", "Åsa-Maria", "--work-days", "sat-sun,mon", "--target-mode", "estimated_need"],
            environment: environment)
        #expect(code == .success)
        (code, captured) = runTool(["user", "set", "Åsa-Maria", "--work-days", "funday"], environment: environment)
        #expect(code == .usage)
        (code, captured) = runTool(["user", "set", "Åsa-Maria", "--target-mode", "need"], environment: environment)
        #expect(code == .usage)
        (code, captured) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(parseCSV(captured.printed).dropFirst().map(\.first) == ["josé", "Åsa-Maria"])

        // The rollup's --user finds a user by any spelling too.
        (code, captured) = runTool(
            ["rollup", "--user", "åsa-maria", "--as-of", "2024-03-01"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.printed.hasPrefix("rollup: 1 users done"))
    }

    @Test func removeAsksForConfirmation() throws {
        let environment = try migratedEnvironment()
        _ = runTool(["user", "add", "eve", "--time-zone", "UTC"], environment: environment)
        let (code, captured) = runTool(["user", "remove", "eve"], environment: environment)
        #expect(code == .usage)
        #expect(captured.errorText.contains("--yes"))
        let (_, listed) = runTool(["user", "list", "--format", "csv"], environment: environment)
        #expect(listed.printed.contains("eve,UTC,"))
    }
}
