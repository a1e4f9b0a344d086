import Synchronization

/// The uploads a server is receiving now (issue 20, F3): how many each person has, and
/// the spool space reserved for them, so that a person's pending count and the spool's
/// free space count uploads still in flight, not only those already queued. An upload
/// reserves its declared length (or the upload cap for a chunked body) when its head is
/// admitted; the bytes it writes turn its reservation into used space; what it did not
/// use is given back when it ends, however it ends.
public final class UploadsInFlight: Sendable {
    private let state = Mutex(State())

    private struct State {
        var byUser: [Int64: Int] = [:]
        var reservedBytes: Int64 = 0
    }

    /// No upload in flight.
    public init() {}

    /// Uploads of `userID` being received now.
    public func count(userID: Int64) -> Int { state.withLock { $0.byUser[userID] ?? 0 } }

    /// Spool bytes reserved and not yet written.
    public var reservedBytes: Int64 { state.withLock { $0.reservedBytes } }

    /// Admits one more upload of `userID` reserving `bytes`: ``ServiceError/Kind/busy`` when
    /// `queued` of theirs plus those in flight reach `maximumPending`;
    /// ``ServiceError/Kind/insufficientStorage`` when `freeBytes` minus every reservation
    /// and this one is below `minimumFreeBytes`.
    func reserve(
        userID: Int64, bytes: Int64, queued: Int, maximumPending: Int, freeBytes: Int64, minimumFreeBytes: Int64
    ) throws(ServiceError) -> Reservation {
        let refusal: ServiceError? = state.withLock { state in
            guard queued + (state.byUser[userID] ?? 0) < maximumPending else {
                return ServiceError(
                    .busy, "\(maximumPending) uploads already wait, run or arrive; try again when one is done")
            }
            let (needed, overflowed) = minimumFreeBytes.addingReportingOverflow(state.reservedBytes)
            guard !overflowed, freeBytes - needed >= bytes else {
                return ServiceError(.insufficientStorage, "the server is short of space; try again later")
            }
            state.byUser[userID, default: 0] += 1
            state.reservedBytes += bytes
            return nil
        }
        if let refusal { throw refusal }
        return Reservation(ledger: self, userID: userID, bytes: bytes)
    }

    fileprivate func use(_ bytes: Int64) { state.withLock { $0.reservedBytes -= bytes } }

    fileprivate func end(userID: Int64, unusedBytes: Int64) {
        state.withLock { state in
            state.reservedBytes -= unusedBytes
            if let count = state.byUser[userID] { state.byUser[userID] = count > 1 ? count - 1 : nil }
        }
    }

    /// One admitted upload's place and space; ended once (by its ``SpoolFile``).
    public final class Reservation: @unchecked Sendable {
        private let ledger: UploadsInFlight
        private let userID: Int64
        private var unusedBytes: Int64
        private var isEnded = false

        fileprivate init(ledger: UploadsInFlight, userID: Int64, bytes: Int64) {
            self.ledger = ledger
            self.userID = userID
            unusedBytes = bytes
        }

        /// `bytes` were written: that much of the reservation is now used space.
        func use(_ bytes: Int64) {
            guard !isEnded else { return }
            let used = min(bytes, unusedBytes)
            unusedBytes -= used
            if used > 0 { ledger.use(used) }
        }

        /// The upload ended (queued, refused, cut or abandoned); harmless twice.
        func end() {
            guard !isEnded else { return }
            isEnded = true
            ledger.end(userID: userID, unusedBytes: unusedBytes)
        }

        deinit { end() }
    }
}
