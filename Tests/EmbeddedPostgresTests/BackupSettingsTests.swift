import Foundation
import Testing

@testable import EmbeddedPostgres

/// The backup settings file, pgBackRest's configuration and the checks that need no cluster.
@Suite("Backup settings")
struct BackupSettingsTests {
    @Test("the settings file reads back what was written; defaults for what it leaves out")
    func settingsRoundTrip() throws {
        let settings = BackupSettings(
            repository: "/backup/sleepledger/", tombstoneFile: "/backup/gone.txt", archiveTimeoutSeconds: 30,
            fullBackupsKept: 2)
        #expect(settings.repository == "/backup/sleepledger")
        #expect(BackupSettings(text: settings.text) == settings)
        let minimal = try #require(BackupSettings(text: "repository = /r\n"))
        #expect(minimal.tombstoneFile == "/r.tombstones")
        #expect(minimal.archiveTimeoutSeconds == 60)
        #expect(minimal.fullBackupsKept == 4)
    }

    @Test(
        "malformed settings files are refused",
        arguments: [
            "", "repository = relative/path\n", "repository = /r\narchive-timeout = 0\n", "nonsense\n",
            "repository = /r\nfull-backups-kept = x\n",
        ])
    func malformed(text: String) {
        #expect(BackupSettings(text: text) == nil)
    }

    @Test("pgBackRest's configuration: encrypted repository, paths in the data folder, fast start, retention")
    func pgBackRestConfiguration() {
        let text = BackupSettings(repository: "/backup/r", fullBackupsKept: 3)
            .pgBackRestConfiguration(home: "/var/lib/sleepledger", serviceUser: "sleepledger", passphrase: "secret")
        for line in [
            "repo1-path=/backup/r", "repo1-cipher-type=aes-256-cbc", "repo1-cipher-pass=secret",
            "repo1-retention-full=3",
            "start-fast=y", "log-path=/var/lib/sleepledger/backup/log", "lock-path=/var/lib/sleepledger/backup/lock",
            "spool-path=/var/lib/sleepledger/backup/spool", "[sleepledger]", "pg1-path=/var/lib/sleepledger/data",
            "pg1-socket-path=/var/lib/sleepledger/run", "pg1-user=sleepledger",
        ] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "missing \(line)")
        }
    }

    @Test(
        "a repository or tombstone file inside the data folder is refused",
        arguments: [
            ("/srv/home/repo", false), ("/srv/home", false), ("/srv/home/backup/../repo", false),
            ("/srv/homeward", true),
            ("/backup/repo", true), ("relative", false),
        ])
    func outsideDataFolder(path: String, isAccepted: Bool) {
        let backups = ClusterBackups(cluster: EmbeddedCluster(home: "/srv/home"))
        let accepted = (try? backups.checkOutsideDataFolder(path, what: "the repository")) != nil
        #expect(accepted == isAccepted)
    }

    @Test(
        "recovery target times are written as pgBackRest wants them, to the microsecond",
        arguments: [
            (1_796_544_840.554018, "2026-12-06 08:14:00.554018+00"), (0, "1970-01-01 00:00:00.000000+00"),
        ])
    func recoveryTime(seconds: Double, text: String) {
        #expect(ClusterBackups.recoveryTime(seconds) == text)
    }
}
