import Foundation
import LedgerTestSupport

/// The text of one of this repository's files, by its path from the root
/// (`docs/architecture.md`, `deploy/systemd/sleepledger-rollup.service`).
func repositoryFile(_ path: String) throws -> String {
    try String(contentsOfFile: TestDatabase.repositoryRoot + "/" + path, encoding: .utf8)
}
