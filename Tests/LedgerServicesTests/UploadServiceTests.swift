import Foundation
import LedgerServices
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing

/// Uploads from admission to the queue, on the server's role through a pool, and the
/// spool that alone creates and removes their files.
@Suite("Upload service and spool")
struct UploadServiceTests {
    static let csv =
        "sourceName,startDate,endDate,value\n"
        + "W,2024-01-01T23:00:00Z,2024-01-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"

    /// A fixture, a pool of the server's sessions, the user's id and a spool folder.
    static func setUp() throws -> (ServiceFixture, SessionPool, Int64, Spool) {
        let fixture = try ServiceFixture()
        let user = try fixture.addUser("anna", zone: "Europe/Berlin")
        let serverURL = try ConnectionString.settingParameter("user", to: DatabaseRoles.server, in: fixture.conninfo)
        let database = fixture.database
        let pool = SessionPool(capacity: 2) { try database.openAsServer(serverURL: serverURL) }
        let folder = fixture.folder.appendingPathComponent("spool").path
        let spool = Spool(folder: folder, host: "here")
        try spool.prepare()
        return (fixture, pool, user.id, spool)
    }

    static func limits(pending: Int = 3, refusing: Bool = false) -> UploadService.Limits {
        UploadService.Limits(maximumBytes: 1 << 20, maximumPending: pending) { _, name throws(ServiceError) in
            if refusing { throw ServiceError(.refusedInput, "\(name): not an export") }
        }
    }

    /// Writes `text` into a new spool file of `service`, admitted for `userID`.
    static func received(_ text: String, _ service: UploadService, _ userID: Int64, _ limits: UploadService.Limits)
        throws -> SpoolFile
    {
        let file = try service.admit(userID: userID, limits: limits)
        let accepted = Array(text.utf8).withUnsafeBytes { file.append($0) }
        #expect(accepted)
        return file
    }

    static func files(_ spool: Spool) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.folder)) ?? []).sorted()
    }

    @Test("a queued upload keeps one file; the same bytes again answer with the earlier job and leave no file")
    func queueAndRepeat() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let woken = Counter()
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0) { woken.add() }
        let first = try service.queue(
            try Self.received(Self.csv, service, annaID, Self.limits()), fileName: "a.csv", contentType: "text/csv",
            userID: annaID, limits: Self.limits())
        guard case .queued(let job) = first else {
            Issue.record("not queued: \(first)")
            return
        }
        #expect(woken.value == 1)
        #expect(Self.files(spool).count == 1 && Self.files(spool)[0].hasPrefix("upload-"))
        let again = try service.queue(
            try Self.received(Self.csv, service, annaID, Self.limits()), fileName: "b.csv", contentType: "text/csv",
            userID: annaID, limits: Self.limits())
        #expect(again == .sameAsEarlier(job))
        #expect(woken.value == 1)
        #expect(Self.files(spool).count == 1, "the repeated upload's file is removed")
        #expect(try service.uploads(userID: annaID).map(\.number) == [1], "the person's first import")
        try service.cancel(job.number, userID: annaID)
        #expect(Self.files(spool).isEmpty, "a cancelled job's file is removed")
    }

    @Test("a refused upload (the check) and a failed queue leave no file; admission refuses from the head")
    func refusals() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        let refused = #expect(throws: ServiceError.self) {
            try service.queue(
                try Self.received(Self.csv, service, annaID, Self.limits()), fileName: "x.csv", contentType: nil,
                userID: annaID, limits: Self.limits(refusing: true))
        }
        #expect(refused?.kind == .refusedInput)
        #expect(Self.files(spool).isEmpty)

        // One pending upload is the most: the next is refused before any byte is kept.
        _ = try service.queue(
            try Self.received(Self.csv, service, annaID, Self.limits(pending: 1)), fileName: "a.csv",
            contentType: nil, userID: annaID, limits: Self.limits(pending: 1))
        let busy = #expect(throws: ServiceError.self) {
            try service.admit(userID: annaID, limits: Self.limits(pending: 1))
        }
        #expect(busy?.kind == .busy)
        #expect(Self.files(spool).count == 1)

        // A spool whose file system has less free space than the reserve refuses (507).
        let full = UploadService(sessions: pool, spool: spool, minimumFreeBytes: Int64.max)
        let short = #expect(throws: ServiceError.self) { try full.admit(userID: annaID, limits: Self.limits()) }
        #expect(short?.kind == .insufficientStorage)
        #expect(Self.files(spool).count == 1)
    }

    @Test("a file cut at its cap or abandoned is removed at once")
    func partialFiles() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        let small = UploadService.Limits(maximumBytes: 10, maximumPending: 3) { _, _ throws(ServiceError) in }
        let file = try service.admit(userID: annaID, limits: small)
        #expect(Self.files(spool).count == 1 && Self.files(spool)[0].hasPrefix("incoming-"))
        let accepted = Array(Self.csv.utf8).withUnsafeBytes { file.append($0) }
        #expect(!accepted && file.isOverCap)
        #expect(Self.files(spool).isEmpty)
        let abandoned = try service.admit(userID: annaID, limits: Self.limits())
        abandoned.abandon()
        #expect(Self.files(spool).isEmpty)
    }

    @Test("the history lists uploads and imports made with sleepledger import, each once, newest first")
    func history() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let anna = try UserService(session: fixture.session).user(handle: "anna")
        let path = try fixture.write("night.csv", Self.csv)
        let command = try #require(
            try ImportService(session: fixture.session).importInput(.path(path), for: anna).outcome)
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        let other =
            "sourceName,startDate,endDate,value\n"
            + "W,2024-01-02T23:00:00Z,2024-01-03T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        _ = try service.queue(
            try Self.received(other, service, annaID, Self.limits()), fileName: "b.csv", contentType: "text/csv",
            userID: annaID, limits: Self.limits())
        let run = try pool.withSession { session in
            try ImportQueue(session: session, host: "here").runNext(anyHost: false, options: .init())
        }
        let job = try #require(run)
        #expect(job.state == .done && job.importID != nil)

        let history = try service.history(userID: annaID)
        // The upload's own imports row is shown once, as the upload; the command's as itself,
        // numbered with the uploads.
        #expect(command.number == 1 && job.number == 2)
        #expect(history.map(\.origin) == [.upload, .command] && history.map(\.number) == [2, 1])
        #expect(history.map(\.state) == [.done, .done])
        #expect(history[1].fileName.hasSuffix("night.csv") && history[1].counts?.inserted == 1)
        #expect(history[0].counts?.inserted == 1 && history[0].sha256 != nil)
        #expect(try service.uploads(userID: annaID).map(\.number) == [2], "the API lists uploads")
        // The admin tool lists the import records, each knowing whether an upload made it.
        let records = try ImportHistory(session: fixture.session).records(for: anna)
        #expect(records.map(\.origin) == [.upload, .command] && records.map(\.number) == [2, 1])
        #expect(records.map(\.recordStatus) == ["succeeded", "succeeded"])
        #expect(records.map(\.importID) == [job.importID, command.importID])
    }

    @Test(
        "each person's imports are numbered 1, 2, 3: uploads and command-line imports in one numbering; another's number or an internal id is not found (issue 20, F13)"
    )
    func numbersPerPerson() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let benID = try fixture.addUser("ben").id
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        func upload(_ text: String, _ userID: Int64) throws -> ImportJobStore.Job {
            let queued = try service.queue(
                try Self.received(text, service, userID, Self.limits()), fileName: "u.csv", contentType: "text/csv",
                userID: userID, limits: Self.limits())
            guard case .queued(let job) = queued else { throw ServiceError(.internalFailure, "not queued") }
            return job
        }
        func runNext() throws -> ImportJobStore.Job? {
            try pool.withSession {
                try ImportQueue(session: $0, host: "here").runNext(anyHost: false, options: .init())
            }
        }
        let later = Self.csv + "W,2024-03-01T23:00:00Z,2024-03-02T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
        // Ben's uploads come first, so anna's internal ids are not her numbers.
        let bens = [try upload(Self.csv, benID), try upload(later, benID)]
        let first = try upload(later, annaID)
        let path = try fixture.write("night.csv", Self.csv.replacingOccurrences(of: "2024-01-0", with: "2024-02-0"))
        let anna = try UserService(session: fixture.session).user(handle: "anna")
        let command = try #require(
            try ImportService(session: fixture.session).importInput(.path(path), for: anna).outcome)
        // Not an export: its import fails, and its record is not listed beside its job.
        let refused = try upload("not, a, sleep, csv\n", annaID)
        for expected in bens + [first] { #expect(try runNext()?.id == expected.id) }
        let failed = try runNext()
        #expect(failed?.state == .failed && failed?.id == refused.id)
        let fourth = try upload(Self.csv, annaID)

        #expect(bens.map(\.number) == [1, 2])
        #expect([first.number, command.number, refused.number, fourth.number] == [1, 2, 3, 4])
        #expect([first.id, fourth.id] == [3, 5], "the internal ids go on across people")
        #expect(try service.history(userID: annaID).map(\.number) == [4, 3, 2, 1])
        #expect(try service.uploads(userID: annaID).map(\.number) == [4, 3, 1])
        #expect(try service.upload(3, userID: annaID).state == .failed)
        // Each person's number finds their own import.
        #expect(try service.upload(1, userID: benID).sha256 == bens[0].sha256)
        #expect(try service.upload(1, userID: annaID).sha256 == first.sha256 && first.sha256 != bens[0].sha256)
        // A number the person has not reached (anna's first's internal id for ben, her own
        // last internal id for anna) or a command-line import's (not the API's) finds nothing.
        for (number, userID) in [(first.id, benID), (fourth.id, annaID), (command.number ?? 0, annaID)] {
            let missing = #expect(throws: ServiceError.self) { try service.upload(number, userID: userID) }
            #expect(missing?.kind == .notFound)
            let notCancelled = #expect(throws: ServiceError.self) { try service.cancel(number, userID: userID) }
            #expect(notCancelled?.kind == .notFound)
        }
        try service.cancel(4, userID: annaID)
        #expect(try service.upload(4, userID: annaID).state == .cancelled)
        #expect(try service.upload(2, userID: benID).sha256 == bens[1].sha256, "ben's own import 2")
    }

    @Test("after a done import the queue rolls the person up on the worker's own session, as the server's role")
    func rollupAfterImport() throws {
        let (fixture, pool, annaID, spool) = try Self.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        _ = try service.queue(
            try Self.received(Self.csv, service, annaID, Self.limits()), fileName: "a.csv", contentType: "text/csv",
            userID: annaID, limits: Self.limits())
        let run = try pool.withSession { session in
            try ImportQueue(session: session, host: "here").runNext(
                anyHost: false, options: .init(), rollingUpWith: fixture.database, now: { 1_704_200_000 })
        }
        let done = try #require(run)
        #expect(done.job.state == .done)
        #expect(done.rollupFailure == nil)
        #expect(done.rollupSeconds != nil)
        #expect(Self.files(spool).isEmpty, "the imported file is removed")
        let connection = try Connection(conninfo: fixture.conninfo)
        defer { connection.close() }
        let nights = try connection.execute("SELECT count(*) FROM nights WHERE user_id = $1", [.int64(annaID)])
        let summaries = try connection.execute(
            "SELECT count(*) FROM summaries WHERE user_id = $1", [.int64(annaID)])
        #expect(try nights.first?.int64(0) == 1)
        #expect(try summaries.first?.int64(0) == 6, "one summary per horizon")
    }
}

/// A count shared with a closure.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
