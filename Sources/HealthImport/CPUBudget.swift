import Glibc
import Synchronization

/// The processor time the threads of one read used, summed, against a limit: each thread
/// adds what its own clock (`CLOCK_THREAD_CPUTIME_ID`) advanced since its previous
/// checkpoint (``ThreadCPUClock``), and a checkpoint that finds the sum past the limit
/// fails the read. Only the read's own threads count, never wall-clock time, so a read
/// that waits (for a slow pipe, for the database) is not charged for the wait.
final class CPUBudget: Sendable {
    /// The limit in nanoseconds; `nil` when there is none.
    let limitNanoseconds: Int64?
    /// The limit as given, for the message.
    let limitSeconds: Double?
    /// The input's name, for the message.
    let fileName: String
    private let used = Atomic<Int64>(0)

    /// A budget of `limitSeconds` of processor time (`nil`: unlimited) for reading `fileName`.
    init(limitSeconds: Double?, fileName: String) {
        self.limitSeconds = limitSeconds
        self.limitNanoseconds = limitSeconds.map { Int64(min(max($0, 0), 1e9) * 1e9) }
        self.fileName = fileName
    }

    /// Processor time charged so far, in nanoseconds.
    var usedNanoseconds: Int64 { used.load(ordering: .relaxed) }

    /// Adds `nanoseconds` and throws when the sum passes the limit.
    func charge(_ nanoseconds: Int64) throws(ImportError) {
        let total = used.add(nanoseconds, ordering: .relaxed).newValue
        guard let limitNanoseconds, let limitSeconds, total > limitNanoseconds else { return }
        throw ImportError.badFile(
            file: fileName, line: nil,
            reason:
                "reading it used more than \(RawInput.secondsText(limitSeconds)) of CPU time, the limit for one import; stopped"
        )
    }

    /// The calling thread's processor time, in nanoseconds.
    static func threadNanoseconds() -> Int64 {
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return 0 }
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
