import Synchronization

/// The data exports a server is writing now (issue 22, item 4): each holds a database
/// session and a thread for as long as its download lasts, so at most ``maximum`` run at
/// once, and one per person.
public final class ExportsInFlight: Sendable {
    /// The most exports at once.
    public let maximum: Int
    private let running = Mutex(Set<Int64>())

    /// No export in flight; at most `maximum` (at least 1) at once.
    public init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    /// Exports being written now.
    public var count: Int { running.withLock { $0.count } }

    /// Admits an export of `userID`: ``ServiceError/Kind/busy`` when one of theirs runs, or
    /// when ``maximum`` run.
    public func admit(userID: Int64) throws(ServiceError) -> Admission {
        let refusal: ServiceError? = running.withLock { running in
            guard !running.contains(userID) else {
                return ServiceError(.busy, "an export of yours is being downloaded; try again once it has ended")
            }
            guard running.count < maximum else {
                return ServiceError(.busy, "\(maximum) exports are being downloaded now; try again in a minute")
            }
            running.insert(userID)
            return nil
        }
        if let refusal { throw refusal }
        return Admission(ledger: self, userID: userID)
    }

    fileprivate func end(userID: Int64) { _ = running.withLock { $0.remove(userID) } }

    /// One admitted export's place; given back once, by ``end()`` or when dropped.
    public final class Admission: Sendable {
        private let ledger: ExportsInFlight
        private let userID: Int64
        private let isEnded = Atomic(false)

        fileprivate init(ledger: ExportsInFlight, userID: Int64) {
            self.ledger = ledger
            self.userID = userID
        }

        /// The export ended, however it ended; harmless twice.
        public func end() {
            guard !isEnded.exchange(true, ordering: .relaxed) else { return }
            ledger.end(userID: userID)
        }

        deinit { end() }
    }
}
