/// What one rollup run did, user by user counted once: done, up to date, skipped
/// (another runner held the user), failed, or not started (the run was stopped).
public struct RollupReport: Sendable, Hashable, Codable {
    /// Users selected (by `--user`, or all users).
    public var usersSelected: Int = 0
    /// Users whose results were written.
    public var usersDone: Int = 0
    /// Of those, users whose nights were rebuilt from all samples.
    public var usersRebuiltFully: Int = 0
    /// Of those, users whose nights were rebuilt from a changed wake day on.
    public var usersRebuiltIncrementally: Int = 0
    /// Users that needed nothing (already rolled up for their as-of day and unchanged).
    public var usersUpToDate: Int = 0
    /// Users another runner held at the moment this one tried to claim them.
    public var usersSkipped: Int = 0
    /// Users that failed; see ``failures``.
    public var usersFailed: Int = 0
    /// Users not reached because the run was stopped (SIGTERM) or lost its connections.
    public var usersNotStarted: Int = 0
    /// Nights written.
    public var nightsWritten: Int = 0
    /// Naps written.
    public var napsWritten: Int = 0
    /// Summary rows written (six per user done).
    public var summariesWritten: Int = 0
    /// Samples read.
    public var samplesRead: Int = 0
    /// Whether the run was asked to stop before it ran out of work.
    public var wasStopped: Bool = false
    /// The users that failed, by handle.
    public var failures: [RollupFailure] = []

    /// An empty report.
    public init() {}

    /// Whether every user that needed work was held by another runner (nothing was done,
    /// nothing failed, at least one was skipped): the CLI's exit 75.
    public var isBusy: Bool {
        usersSkipped > 0 && usersDone == 0 && usersFailed == 0 && usersNotStarted == 0
    }

    enum CodingKeys: String, CodingKey {
        case usersSelected = "users_selected"
        case usersDone = "users_done"
        case usersRebuiltFully = "users_rebuilt_fully"
        case usersRebuiltIncrementally = "users_rebuilt_incrementally"
        case usersUpToDate = "users_up_to_date"
        case usersSkipped = "users_skipped"
        case usersFailed = "users_failed"
        case usersNotStarted = "users_not_started"
        case nightsWritten = "nights_written"
        case napsWritten = "naps_written"
        case summariesWritten = "summaries_written"
        case samplesRead = "samples_read"
        case wasStopped = "was_stopped"
        case failures
    }
}
