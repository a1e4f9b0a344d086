public import LedgerStore
import SleepReports

extension ImportLockHolder {
    /// What holds a user's import lock, for a message: `import 42 of anna (export.zip,
    /// started 2025-03-17 04:00 UTC)` or `the removal of anna (started 2025-03-17 04:00
    /// UTC)`; the start is left out when the server does not show it.
    public func text(handle: String) -> String {
        let started = since.map { "started \(ReportFormat.utcTime($0))" }
        switch activity {
        case .importing(let importID, let fileName):
            return "import \(importID) of \(handle) (\([fileName, started].compactMap { $0 }.joined(separator: ", ")))"
        case .removingUser:
            return "the removal of \(handle)" + (started.map { " (\($0))" } ?? "")
        }
    }

    /// ``text(handle:)``, or `another session holding anna's import lock` when the holder
    /// is not known.
    public static func text(_ holder: ImportLockHolder?, handle: String) -> String {
        holder?.text(handle: handle) ?? "another session holding \(handle)'s import lock"
    }
}
