import Foundation
import LedgerServices
import Synchronization
import Testing

/// Quotas that count uploads in flight (issue 20, F3): a person's pending uploads include
/// those still being received, and the spool's free space is reserved by each upload's
/// declared length and checked while it is written.
@Suite("Uploads in flight: pending counts and reserved space")
struct UploadsInFlightTests {
    static let mebibyte: Int64 = 1 << 20

    /// A free-space reading a test sets.
    final class FreeSpace: Sendable {
        private let bytes: Mutex<Int64>
        init(_ bytes: Int64) { self.bytes = Mutex(bytes) }
        func set(_ value: Int64) { bytes.withLock { $0 = value } }
        var value: Int64 { bytes.withLock { $0 } }
    }

    static func limits(pending: Int) -> UploadService.Limits {
        UploadService.Limits(maximumBytes: 64 << 20, maximumPending: pending) { _, _ throws(ServiceError) in }
    }

    @Test("uploads still being received count towards the pending limit; one that ends frees its place")
    func pendingCountsInFlight() throws {
        let (fixture, pool, annaID, spool) = try UploadServiceTests.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let service = UploadService(sessions: pool, spool: spool, minimumFreeBytes: 0)
        let first = try service.admit(userID: annaID, limits: Self.limits(pending: 2), declaredBytes: 10)
        let second = try service.admit(userID: annaID, limits: Self.limits(pending: 2), declaredBytes: 10)
        #expect(service.inFlight.count(userID: annaID) == 2)
        #expect(throws: ServiceError.self) {
            try service.admit(userID: annaID, limits: Self.limits(pending: 2), declaredBytes: 10)
        }
        #expect(service.inFlight.count(userID: annaID + 1) == 0, "another person is not counted")
        first.abandon()
        let third = try service.admit(userID: annaID, limits: Self.limits(pending: 2), declaredBytes: 10)
        second.abandon()
        third.abandon()
        #expect(service.inFlight.count(userID: annaID) == 0)
        #expect(service.inFlight.reservedBytes == 0)
    }

    @Test("free space is reserved by declared lengths: past it 507 at the head; written bytes use the reservation")
    func spaceIsReserved() throws {
        let (fixture, pool, annaID, spool) = try UploadServiceTests.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let free = FreeSpace(200 * Self.mebibyte)
        let service = UploadService(
            sessions: pool, spool: spool, minimumFreeBytes: 100 * Self.mebibyte, freeBytes: { free.value })
        let limits = Self.limits(pending: 10)
        let first = try service.admit(userID: annaID, limits: limits, declaredBytes: 60 * Self.mebibyte)
        do {
            _ = try service.admit(userID: annaID, limits: limits, declaredBytes: 60 * Self.mebibyte)
            Issue.record("a second 60 MiB upload fit in 100 MiB above the floor with 60 MiB reserved")
        } catch {
            #expect(error.kind == .insufficientStorage)
        }
        // A chunked body reserves the cap (64 MiB): no room either.
        #expect(throws: ServiceError.self) { try service.admit(userID: annaID, limits: limits) }
        let small = try service.admit(userID: annaID, limits: limits, declaredBytes: 30 * Self.mebibyte)
        #expect(service.inFlight.reservedBytes == 90 * Self.mebibyte)
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        let written = chunk.withUnsafeBytes { small.append($0) }
        #expect(written)
        #expect(service.inFlight.reservedBytes == 89 * Self.mebibyte, "written bytes are used space, not reserved")
        first.abandon()
        small.abandon()
        #expect(service.inFlight.reservedBytes == 0)
    }

    @Test("an upload is cut when free space falls below the floor while it is written, and its file is removed")
    func cutWhenShortWhileWriting() throws {
        let (fixture, pool, annaID, spool) = try UploadServiceTests.setUp()
        defer {
            pool.close()
            fixture.close()
        }
        let free = FreeSpace(500 * Self.mebibyte)
        let service = UploadService(
            sessions: pool, spool: spool, minimumFreeBytes: 100 * Self.mebibyte, freeBytes: { free.value })
        let file = try service.admit(userID: annaID, limits: Self.limits(pending: 3), declaredBytes: 32 * Self.mebibyte)
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        for _ in 0..<4 { #expect(chunk.withUnsafeBytes { file.append($0) }) }
        #expect(UploadServiceTests.files(spool).count == 1)
        // The database (same file system) grew meanwhile.
        free.set(90 * Self.mebibyte)
        var accepted = true
        for _ in 0..<8 where accepted { accepted = chunk.withUnsafeBytes { file.append($0) } }
        #expect(!accepted)
        #expect(file.isOutOfSpace)
        #expect(UploadServiceTests.files(spool).isEmpty, "the partial file is removed")
        #expect(service.inFlight.count(userID: annaID) == 0)
        #expect(service.inFlight.reservedBytes == 0)
    }
}
