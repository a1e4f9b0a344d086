import Synchronization

/// A flag a signal handler (SIGTERM, SIGINT) raises to stop a rollup cleanly: workers
/// take no new user once it is raised; the user in progress is finished (or rolled back
/// on error) and the run returns its report.
public final class RollupStopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Creates a lowered flag.
    public init() {}

    /// Asks the run to stop after the users in progress.
    public func raise() { raised.store(true, ordering: .sequentiallyConsistent) }

    /// Whether ``raise()`` was called.
    public var isRaised: Bool { raised.load(ordering: .sequentiallyConsistent) }
}
