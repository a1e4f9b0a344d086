import ExportFixtures
import Foundation
import HealthImport
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import SleepCore
import SleepFixtures
import Synchronization
import Testing

@Suite("Import service: stalled inputs and the import lock")
struct ImportLockServiceTests {
    static let samples = SleepStreamGenerator(seed: 17).samples(
        from: LocalDate(year: 2023, month: 3, day: 1), through: LocalDate(year: 2023, month: 3, day: 20))
    static let distinct = Set(samples.map { "\($0.source)|\($0.start)|\($0.end)|\($0.stage)" }).count

    static func exportXML() throws -> [UInt8] {
        var bytes: [UInt8] = []
        let sink = ByteSink { bytes.append(contentsOf: $0) }
        try ExportXMLWriter.write(samples: samples, spec: ExportSpec(seed: 17), to: sink)
        try sink.flush()
        return bytes
    }

    /// Waits until an import of the user announces that it holds the user's import lock.
    static func waitUntilHeld(_ conninfo: String, userID: Int64) throws -> ImportLockHolder? {
        let observer = try Connection(conninfo: conninfo)
        defer { observer.close() }
        for _ in 0..<400 {
            if let holder = try ImportLock(connection: observer).holder(userID: userID) { return holder }
            usleep(25_000)
        }
        return nil
    }

    @Test("an input that stalls fails its import cleanly and quickly, is recorded, and the next import proceeds")
    func stalledInput() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        let bytes = try Self.exportXML()
        let pipe = try StalledPipe(sending: Array(bytes.prefix(bytes.count / 2)))
        defer { pipe.close() }
        let database = fixture.database
        let descriptor = pipe.readingDescriptor
        let finished = finishing(within: 30) { () throws -> ImportService.Result in
            let session = try database.open(access: .writes)
            defer { session.close() }
            return try ImportService(session: session).importInput(
                .fileDescriptor(descriptor, name: "-"), for: anna,
                options: ImportService.Options(reader: ReaderOptions(idleTimeoutSeconds: 0.5)))
        }
        if !finished.didFinish {
            Issue.record("the import of a stalled pipe did not end")
            pipe.release()
            finished.waitForThread()
        }
        let error = try #require(finished.error as? ServiceError)
        #expect(error.kind == .unreadableInput)
        #expect(error.message == "cannot read -: no data arrived for 0.5 s (the idle timeout); the input stalled")
        #expect(finished.seconds < 10)

        let service = ImportService(session: fixture.session)
        let history = try ImportHistory(session: service.session).imports(for: anna)
        #expect(history.map(\.status) == ["failed"])
        let observer = try Connection(conninfo: fixture.conninfo)
        defer { observer.close() }
        #expect(try observer.execute("SELECT error FROM imports").single().string(0) == error.message)
        #expect(try observer.execute("SELECT count(*) FROM sleep_samples").single().int(0) == 0)
        // The lock was released and nothing was stored: the next import stores everything.
        let file = try fixture.write("export.xml", String(decoding: bytes, as: UTF8.self))
        let next = try service.importInput(.path(file), for: anna, options: ImportService.Options(lockWaitSeconds: 1))
        #expect(next.outcome?.inserted == Self.distinct)
    }

    @Test("a second import of the user gives up after its lock wait as busy, naming the running import")
    func busy() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        // The whole export, but the writer never closes the pipe: the import waits for
        // the end of its input, holding the lock.
        let bytes = try Self.exportXML()
        let pipe = try StalledPipe(sending: bytes)
        defer { pipe.close() }
        let database = fixture.database
        let descriptor = pipe.readingDescriptor
        let holder = finishing(within: 0) { () throws -> ImportService.Result in
            let session = try database.open(access: .writes)
            defer { session.close() }
            return try ImportService(session: session).importInput(
                .fileDescriptor(descriptor, name: "holder.xml"), for: anna,
                options: ImportService.Options(reader: ReaderOptions(idleTimeoutSeconds: 120)))
        }
        let announced = try Self.waitUntilHeld(fixture.conninfo, userID: anna.id)
        #expect(announced != nil, "the first import never held the lock")

        let zip = try fixture.writeZip("export.zip", samples: Self.samples)
        let seen = Mutex<[ImportLockHolder?]>([])
        let second = finishing(within: 30) { () throws -> ImportService.Result in
            let session = try database.open(access: .writes)
            defer { session.close() }
            return try ImportService(session: session).importInput(
                .path(zip), for: anna, options: ImportService.Options(lockWaitSeconds: 0.5),
                onLockWait: { holder in seen.withLock { $0.append(holder) } })
        }
        pipe.release()
        let first = try #require(try holder.finalResult()?.get())
        let firstID = try #require(first.outcome?.importID)
        #expect(second.didFinish, "the second import waited without a limit")
        second.waitForThread()

        let error = second.error as? ServiceError
        #expect(error?.kind == .busy)
        #expect(second.seconds >= 0.5 && second.seconds < 10)
        let message = error?.message ?? ""
        #expect(message.hasPrefix("\(zip): import \(firstID) of anna (holder.xml, started "))
        #expect(
            message.hasSuffix(
                " UTC) still holds the user's import lock after 0.5 s; nothing was imported, try again when it has finished"
            ))
        #expect(seen.withLock { $0 }.map { $0?.activity } == [.importing(importID: firstID, fileName: "holder.xml")])
        // The busy attempt read nothing and is not in the history; the first one succeeded.
        #expect(try ImportHistory(session: fixture.session).imports(for: anna).map(\.status) == ["succeeded"])
        #expect(first.outcome?.inserted == Self.distinct)
    }

    @Test("an import that waited for the user's removal says so and then finds the user gone")
    func waitedForRemoval() throws {
        let fixture = try ServiceFixture()
        defer { fixture.close() }
        let anna = try fixture.addUser("anna", zone: "Europe/Berlin")
        let zip = try fixture.writeZip("export.zip", samples: Self.samples)
        // A removal in progress, as UserStore.remove does it, held open.
        let removal = try Connection(conninfo: fixture.conninfo)
        defer { removal.close() }
        try removal.execute("BEGIN")
        let lock = ImportLock(connection: removal)
        #expect(try lock.acquire(userID: anna.id, waitSeconds: nil, onWait: { _ in }))
        try lock.announce(.removingUser, userID: anna.id)
        try removal.execute("DELETE FROM users WHERE id = $1", [.int64(anna.id)])

        let seen = Mutex<[ImportLockHolder?]>([])
        let database = fixture.database
        let waiting = finishing(within: 1) { () throws -> ImportService.Result in
            let session = try database.open(access: .writes)
            defer { session.close() }
            return try ImportService(session: session).importInput(
                .path(zip), for: anna, options: ImportService.Options(lockWaitSeconds: 20),
                onLockWait: { holder in seen.withLock { $0.append(holder) } })
        }
        #expect(!waiting.didFinish)
        try removal.execute("COMMIT")
        let error = #expect(throws: ServiceError.self) { try waiting.finalResult(waiting: 30)?.get() }
        #expect(error?.kind == .notFound)
        #expect(error?.message == "no user with handle 'anna': removed while this import waited")
        let holders = seen.withLock { $0 }
        #expect(holders.map { $0?.activity } == [.removingUser])
        #expect(holders.first??.text(handle: "anna").hasPrefix("the removal of anna (started ") == true)
        let observer = try Connection(conninfo: fixture.conninfo)
        defer { observer.close() }
        #expect(try observer.execute("SELECT count(*) FROM imports").single().int(0) == 0)
    }

    @Test(
        "a lock wait that runs out is busy (exit 75), whichever layer reports it",
        arguments: [
            (StoreError(.busy, "held", sqlState: "55P03", statement: "importLock.wait") as any Error),
            PostgresError(.queryFailed, "canceling statement due to lock timeout", sqlState: "55P03"),
        ])
    func busyKind(error: any Error) {
        #expect(ServiceError(error).kind == .busy)
    }
}
