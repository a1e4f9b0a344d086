import Foundation
import LedgerCLI
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Schema checks and the embedded cluster through the executables")
struct SchemaAndClusterCommandTests {
    @Test func writingToolRefusesPendingMigrations() throws {
        let database = try TestDatabase.fresh()
        let environment = [
            "DATABASE_URL": database.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder,
        ]
        let (code, captured) = runTool(["user", "add", "ada", "--time-zone", "UTC"], environment: environment)
        #expect(code == .unavailable)
        #expect(captured.errorText.contains("sleepledger migrate"))

        let (statusCode, status) = runTool(["migrate", "--status"], environment: environment)
        #expect(statusCode == .success)
        #expect(status.printed.contains("pending  0001_foundation.sql"))

        let (migrateCode, migrated) = runTool(["migrate"], environment: environment)
        #expect(migrateCode == .success)
        #expect(migrated.printed.contains("applied  0001_foundation.sql"))
        let (again, rerun) = runTool(["migrate"], environment: environment)
        #expect(again == .success)
        #expect(rerun.printed == "schema is up to date\n")
        #expect(runTool(["user", "add", "ada", "--time-zone", "UTC"], environment: environment).0 == .success)
    }

    @Test func everyToolRefusesANewerSchema() throws {
        let database = try TestDatabase.migrated()
        let connection = try Connection(conninfo: database.conninfo)
        _ = try connection.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (9999, 'from_the_future')")
        connection.close()
        let environment = [
            "DATABASE_URL": database.conninfo, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder,
        ]
        for arguments in [["user", "list"], ["user", "add", "bo", "--time-zone", "UTC"], ["migrate"]] {
            let (code, captured) = runTool(arguments, environment: environment)
            #expect(code == .unavailable, "\(arguments)")
            #expect(captured.errorText.contains("9999"), "\(arguments): \(captured.errorText)")
        }
    }

    /// Two real processes start one new embedded cluster at once: both succeed, one server.
    @Test func twoProcessesStartTheEmbeddedClusterAtOnce() throws {
        var template = Array("/tmp/sleepledger-cli-XXXXXX".utf8CString)
        let folder = try #require(mkdtemp(&template).map { String(cString: $0) })
        chmod(folder, 0o755)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = [
            "SLEEPLEDGER_HOME": folder + "/home", "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        defer { _ = try? runProcess("sleepledger", ["db", "stop"], environment: environment) }
        let results = Mutexed<[(status: Int32, output: String, error: String)]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            if let result = try? runProcess("sleepledger", ["db", "start"], environment: environment) {
                results.append(result)
            }
        }
        let finished = results.value
        #expect(finished.count == 2)
        for result in finished { #expect(result.status == 0, "\(result.error)") }

        let status = try runProcess("sleepledger", ["db", "status"], environment: environment)
        #expect(status.output.contains(": running (pid "))
        let users = try runProcess("sleepledger", ["user", "list", "--format", "csv"], environment: environment)
        #expect(users.status == 0, "\(users.error)")
        let stop = try runProcess("sleepledger", ["db", "stop"], environment: environment)
        #expect(stop.status == 0)
        let stopped = try runProcess("sleepledger", ["db", "status"], environment: environment)
        #expect(stopped.output.split(separator: "\n").first?.hasSuffix(": stopped") == true)
    }
}

/// A tiny lock-protected box for collecting results from concurrent work.
final class Mutexed<Value: Sendable>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func append<Element>(_ element: Element) where Value == [Element] { lock.withLock { stored.append(element) } }
}
