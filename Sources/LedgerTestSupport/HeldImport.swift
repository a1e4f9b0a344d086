import Dispatch
import Foundation
public import LedgerStore
import PostgresClient
public import SleepCore
import Synchronization

/// An import of one user that holds the user's import lock until ``finish()``: on a
/// thread and a connection of its own it takes the lock, writes its `running` row, streams
/// its samples and then waits inside its transaction, as an import whose input stalled does.
public final class HeldImport: Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<ImportOutcome, any Error>?>(nil)

    /// Starts the import and returns once it holds the lock (or has failed).
    public init(conninfo: String, userID: Int64, fileName: String = "held.xml", samples: [SleepSample] = []) {
        let holding = DispatchSemaphore(value: 0)
        let release = self.release
        let done = self.done
        Thread { [self] in
            let result = Result { () throws -> ImportOutcome in
                let connection = try Connection(conninfo: conninfo)
                defer { connection.close() }
                var audit = ImportAudit(fileName: fileName, isFromStandardInput: false)
                audit.sizeBytes = 1
                audit.sha256 = String(repeating: "ab", count: 32)
                audit.kind = "xml"
                audit.samplesRead = samples.count
                audit.samplesAccepted = samples.count
                return try SampleLoader(connection: connection).load(
                    userID: userID, userTimeZone: nil, audit: audit
                ) { sink in
                    for sample in samples { try sink.append(sample) }
                    holding.signal()
                    release.wait()
                    return audit
                }
            }
            self.outcome.withLock { $0 = result }
            holding.signal()
            done.signal()
        }.start()
        holding.wait()
    }

    /// Lets the import commit and returns what it stored (or rethrows why it failed).
    public func finish() throws -> ImportOutcome {
        release.signal()
        done.wait()
        done.signal()
        guard let result = outcome.withLock({ $0 }) else { throw StoreError(.invalidUse, "no outcome") }
        return try result.get()
    }
}
