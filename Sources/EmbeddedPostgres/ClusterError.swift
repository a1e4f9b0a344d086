/// The one error type of the embedded cluster: what could not be done to the private
/// PostgreSQL cluster (create, start, stop, run a helper program), with what a person
/// needs to act on it. Messages name paths, programs and exit statuses, never data.
public struct ClusterError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in one line.
    public var message: String
    /// What to do about it, or the failing program's last output lines.
    public var detail: String?

    /// Creates an error.
    public init(_ message: String, detail: String? = nil) {
        self.message = message
        self.detail = detail
    }

    /// `clusterFailed: message - detail`.
    public var description: String {
        var text = "clusterFailed: \(message)"
        if let detail, !detail.isEmpty { text += " - \(detail)" }
        return text
    }
}
