/// The session holding a user's import lock, as another session sees it in
/// `pg_stat_activity`: what it is doing and since when (see ``ImportLock``).
public struct ImportLockHolder: Sendable, Hashable {
    /// What the holding session does.
    public enum Activity: Sendable, Hashable {
        /// Imports an input: the `imports` row's id (its `running` row is not visible to
        /// others until it commits) and the input's file name as far as
        /// `application_name` keeps it (the last path component, printable ASCII, cut to
        /// fit; `-` for standard input).
        case importing(importID: Int64, fileName: String)
        /// Removes the user (`sleepledger user remove`).
        case removingUser
    }

    /// What the holding session does.
    public var activity: Activity
    /// When its transaction began (epoch seconds), which for an import is the `imports`
    /// row's `started_at`; `nil` when the server does not show it to this role.
    public var since: Int64?
    /// The server process of the holding session (`pg_stat_activity.pid`), for an operator
    /// who must end it (`pg_terminate_backend`).
    public var serverProcessID: Int32

    /// Creates a holder.
    public init(activity: Activity, since: Int64?, serverProcessID: Int32) {
        self.activity = activity
        self.since = since
        self.serverProcessID = serverProcessID
    }
}
