import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

/// The CLI's side of deletions that survive a restore: `user remove` writes the tombstone
/// to `SLEEPLEDGER_TOMBSTONES`, and the writing starts remove an account that is back.
@Suite("sleepledger: tombstones of deleted accounts")
struct TombstoneCommandTests {
    @Test(
        "user remove records a tombstone; migrate and rollup remove the account again when a restore brought it back",
        arguments: [["migrate"], ["rollup"]])
    func writingStartsReapply(start: [String]) throws {
        var environment = try migratedEnvironment()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tombstones-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tombstones").path
        environment["SLEEPLEDGER_TOMBSTONES"] = file
        var (code, captured) = runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        let connection = try Connection(conninfo: try #require(environment["DATABASE_URL"]))
        defer { connection.close() }
        let row = try #require(try connection.execute("SELECT u::text, id FROM users u").first)
        let (text, id) = (try #require(try row.string(0)), try #require(try row.int64(1)))

        (code, captured) = runTool(["user", "remove", "anna", "--yes"], environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        let tombstones = try TombstoneFile(path: file).tombstones()
        #expect(tombstones.map(\.userID) == [id])

        // As a restore would: the same row again.
        try connection.execute("INSERT INTO users OVERRIDING SYSTEM VALUE SELECT ($1::users).*", [.text(text)])
        (code, captured) = runTool(start, environment: environment)
        #expect(code == .success, "\(captured.errorText)")
        #expect(captured.errorText.contains("removed account \(id) again"), "\(captured.errorText)")
        #expect(try connection.execute("SELECT 1 FROM users WHERE id = $1", [.int64(id)]).rows.isEmpty)
    }
}
