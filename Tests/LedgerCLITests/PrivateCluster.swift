import Foundation
import LedgerCLI
import LedgerServices
import LedgerTestSupport

/// An embedded cluster of a test's own, started under a fresh `SLEEPLEDGER_HOME` (the
/// suite's shared server may be an external one), for tests that change what the whole
/// cluster shares, such as a role's settings. ``stop()`` stops it and removes the folder.
struct PrivateCluster {
    /// The data folder.
    let home: URL
    /// The environment the tools see: this cluster, the repository's migrations.
    let environment: [String: String]
    /// The cluster's database, as the tools configure it from ``environment``.
    let database: LedgerDatabase

    /// Creates the folder (`name-<uuid>` in the temporary folder) and starts the cluster.
    init(_ name: String) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // As root the cluster runs as an unprivileged user, who must reach the folder.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home.path)
        environment = ["SLEEPLEDGER_HOME": home.path, "SLEEPLEDGER_MIGRATIONS": TestDatabase.migrationsFolder]
        database = try Configuration(environment: environment, isTerminal: false).database
        do {
            try database.startCluster()
        } catch {
            try? FileManager.default.removeItem(at: home)
            throw error
        }
    }

    /// Stops the cluster and removes its folder.
    func stop() {
        try? database.stopCluster()
        try? FileManager.default.removeItem(at: home)
    }
}
