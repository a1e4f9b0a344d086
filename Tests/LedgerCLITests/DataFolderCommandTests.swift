import Foundation
import Glibc
import LedgerCLI
import LedgerTestSupport
import Testing

/// The tools refuse a data folder others could change, on every path to the embedded
/// cluster: starting it, connecting to it while it runs, stopping it.
@Suite("sleepledger and sleepledger-admin on an unsafe data folder")
struct DataFolderCommandTests {
    /// A fresh 0755 folder like the suite's own, holding the home `home`.
    static func makeParent() throws -> String {
        var template = Array("/tmp/sleepledger-cli-folders-XXXXXX".utf8CString)
        let parent = try #require(mkdtemp(&template).map { String(cString: $0) })
        chmod(parent, 0o755)
        return parent
    }

    @Test("db start on a home writable by every user: exit 69 naming the folder and the chmod, nothing created")
    func worldWritableHome() throws {
        let parent = try Self.makeParent()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let home = parent + "/home"
        #expect(mkdir(home, 0o777) == 0)
        chmod(home, 0o777)
        let environment = ["SLEEPLEDGER_HOME": home, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
        for arguments in [["db", "start"], ["user", "list"]] {
            let (code, captured) = runTool(arguments, environment: environment)
            #expect(code == .unavailable)
            #expect(
                captured.errorText.hasPrefix(
                    "sleepledger: clusterFailed: refusing the data folder \(home): the data folder \(home) is writable by every user (mode 0777) - fix: `chmod go-w \(home)`"
                ), "\(captured.errorText)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty)
    }

    @Test("a running cluster whose socket folder was opened up is neither used nor stopped until it is fixed")
    func openedSocketFolder() throws {
        let parent = try Self.makeParent()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let home = parent + "/home"
        let environment = ["SLEEPLEDGER_HOME": home, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
        let database = try Configuration(environment: environment, isTerminal: false).database
        try database.startCluster()
        defer { try? database.stopCluster() }
        #expect(runTool(["user", "add", "anna", "--time-zone", "UTC"], environment: environment).0 == .success)
        #expect(runAdmin(["users"], environment: environment).0 == .success)

        let run = home + "/run"
        chmod(run, 0o777)
        for (tool, arguments) in [
            ("sleepledger-admin", ["users"]), ("sleepledger", ["user", "list"]), ("sleepledger", ["db", "stop"]),
        ] {
            let (code, captured) =
                tool == "sleepledger"
                ? runTool(arguments, environment: environment) : runAdmin(arguments, environment: environment)
            #expect(code == .unavailable, "\(tool) \(arguments)")
            #expect(
                captured.errorText.contains("the socket folder \(run) is writable by every user"),
                "\(captured.errorText)")
            #expect(captured.errorText.contains("`chmod 0700 \(run)`"), "\(captured.errorText)")
            #expect(captured.printed.isEmpty)
        }
        #expect(database.clusterState() != .stopped)

        chmod(run, 0o700)
        #expect(runAdmin(["users"], environment: environment).0 == .success)
        #expect(runTool(["db", "stop"], environment: environment).0 == .success)
        #expect(database.clusterState() == .stopped)
    }
}
