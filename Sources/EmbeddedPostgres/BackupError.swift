/// The one error type of the embedded cluster's backups: why a pgBackRest command (setup,
/// backup, list, verify, restore) could not be done, in a category the front ends map to
/// an exit code, and one line a person can act on. Messages name paths, programs, backup
/// labels and times, never data.
public struct BackupError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Hashable {
        /// What was asked cannot be done with what was given: a missing or wrong
        /// passphrase, a repository inside the data folder, a target time before the first
        /// backup, a damaged backup (exit 65).
        case badInput
        /// Backups are not set up, or the cluster or pgBackRest cannot be used (exit 69).
        case unavailable
        /// Not now: the cluster runs (a restore needs it stopped), or the repository's disk
        /// is full (exit 75).
        case tryLater
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong, in one line.
    public var message: String
    /// What to do about it, or the failing program's last output lines.
    public var detail: String?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// `message - detail`.
    public var description: String {
        guard let detail, !detail.isEmpty else { return message }
        return message + " - " + detail
    }
}
