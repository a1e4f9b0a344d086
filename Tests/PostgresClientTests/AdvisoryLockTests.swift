import Glibc
import LedgerTestSupport
import PostgresClient
import Testing

@Suite("Advisory locks")
struct AdvisoryLockTests {
    @Test("a session lock held by one connection is refused to another until released")
    func sessionLock() throws {
        let database = try TestDatabase.fresh()
        let first = try Connection(conninfo: database.conninfo)
        let second = try Connection(conninfo: database.conninfo)
        let key: Int64 = 42_4242
        #expect(try first.tryAdvisoryLock(key))
        #expect(try !second.tryAdvisoryLock(key))
        #expect(try second.advisoryUnlock(key) == false)
        #expect(try first.advisoryUnlock(key))
        #expect(try second.tryAdvisoryLock(key))
        #expect(try !first.tryAdvisoryLock(key))
        second.close()
        // Closing the session releases its locks, once the server has processed the
        // disconnect (asynchronously): poll for up to five seconds.
        var acquired = false
        for _ in 0..<100 where !acquired {
            acquired = try first.tryAdvisoryLock(key)
            if !acquired { usleep(50_000) }
        }
        #expect(acquired)
    }

    @Test("a transaction lock is released at commit")
    func transactionLock() throws {
        let database = try TestDatabase.fresh()
        let first = try Connection(conninfo: database.conninfo)
        let second = try Connection(conninfo: database.conninfo)
        let key: Int64 = -7
        let during = try first.transaction { first in
            (try first.tryAdvisoryTransactionLock(key), try second.tryAdvisoryLock(key))
        }
        #expect(during.0)
        #expect(!during.1)
        #expect(try second.tryAdvisoryLock(key))
        let whileHeldElsewhere = try first.transaction { try $0.tryAdvisoryTransactionLock(key) }
        #expect(!whileHeldElsewhere)
    }
}
