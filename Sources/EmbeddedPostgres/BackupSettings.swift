/// How the embedded cluster is backed up, chosen once by `sleepledger db setup-backups`
/// and kept in `<home>/backup/settings` (the passphrase is not here: it is only in
/// pgBackRest's own configuration, `<home>/backup/pgbackrest.conf`, mode 0600).
public struct BackupSettings: Sendable, Equatable {
    /// The pgBackRest repository: a folder outside the data folder, on another disk.
    public var repository: String
    /// The file of deleted accounts' tombstones, beside the repository. Default
    /// `<repository>.tombstones`.
    public var tombstoneFile: String
    /// PostgreSQL's `archive_timeout`: the longest a commit waits before its WAL segment
    /// is archived, which is the recovery point after a lost disk. Default 60 seconds.
    public var archiveTimeoutSeconds: Int
    /// Full backups kept (pgBackRest's `repo1-retention-full`, by count); the
    /// differential and incremental backups and the WAL that depend on an expired full
    /// backup go with it. Default 4: four weeks with a weekly full backup.
    public var fullBackupsKept: Int

    /// The default of ``archiveTimeoutSeconds``.
    public static let defaultArchiveTimeoutSeconds = 60
    /// The default of ``fullBackupsKept``.
    public static let defaultFullBackupsKept = 4
    /// The pgBackRest stanza of the embedded cluster.
    public static let stanza = "sleepledger"

    /// Creates settings; the tombstone file defaults to `<repository>.tombstones`.
    public init(
        repository: String, tombstoneFile: String? = nil, archiveTimeoutSeconds: Int = defaultArchiveTimeoutSeconds,
        fullBackupsKept: Int = defaultFullBackupsKept
    ) {
        var repository = repository
        while repository.count > 1, repository.hasSuffix("/") { repository.removeLast() }
        self.repository = repository
        self.tombstoneFile = tombstoneFile ?? repository + ".tombstones"
        self.archiveTimeoutSeconds = archiveTimeoutSeconds
        self.fullBackupsKept = fullBackupsKept
    }

    /// The settings file's text: `name = value` lines.
    public var text: String {
        """
        # Written by `sleepledger db setup-backups`; see docs/operations.md, "Backups".
        repository = \(repository)
        tombstones = \(tombstoneFile)
        archive-timeout = \(archiveTimeoutSeconds)
        full-backups-kept = \(fullBackupsKept)

        """
    }

    /// Reads the settings file's text; `nil` when a line is malformed or the repository is missing.
    public init?(text: String) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            values[name] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let repository = values["repository"], repository.hasPrefix("/") else { return nil }
        let timeout = values["archive-timeout"].map { Int($0) } ?? Self.defaultArchiveTimeoutSeconds
        let kept = values["full-backups-kept"].map { Int($0) } ?? Self.defaultFullBackupsKept
        guard let timeout, timeout > 0, let kept, kept > 0 else { return nil }
        self.init(
            repository: repository, tombstoneFile: values["tombstones"], archiveTimeoutSeconds: timeout,
            fullBackupsKept: kept)
    }

    /// pgBackRest's configuration for the cluster in `home` run by `serviceUser`, with the
    /// repository encrypted by `passphrase`: logs, locks and the archive spool in
    /// `<home>/backup`, fast checkpoints at the start of a backup, the retention.
    public func pgBackRestConfiguration(home: String, serviceUser: String, passphrase: String) -> String {
        """
        # Written by `sleepledger db setup-backups` (or `db restore --repository`); mode 0600,
        # it holds the repository's passphrase. See docs/operations.md, "Backups".
        [global]
        repo1-path=\(repository)
        repo1-cipher-type=aes-256-cbc
        repo1-cipher-pass=\(passphrase)
        repo1-retention-full-type=count
        repo1-retention-full=\(fullBackupsKept)
        compress-type=zst
        start-fast=y
        log-path=\(home)/backup/log
        lock-path=\(home)/backup/lock
        spool-path=\(home)/backup/spool
        log-level-console=warn
        log-level-file=info

        [\(Self.stanza)]
        pg1-path=\(home)/data
        pg1-socket-path=\(home)/run
        pg1-port=\(EmbeddedCluster.port)
        pg1-user=\(serviceUser)

        """
    }
}
