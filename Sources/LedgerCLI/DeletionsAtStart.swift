import LedgerServices

/// What every writing start (`migrate`, `serve`, `worker`, `rollup`) does first: remove
/// again the accounts a restore brought back, by their tombstones
/// (``LedgerReadServices/LedgerDatabase/reapplyDeletions()``), logging each.
enum DeletionsAtStart {
    static func reapply(_ database: LedgerDatabase, log: (String) -> Void) throws {
        for removed in try database.reapplyDeletions() { log(LedgerDatabase.logLine(removed)) }
    }
}
