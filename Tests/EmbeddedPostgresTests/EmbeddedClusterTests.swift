import EmbeddedPostgres
import Foundation
import Glibc
import LedgerTestSupport
import PostgresClient
import Testing

/// Each test starts its own cluster in a fresh folder (initdb takes a second or two).
@Suite("Embedded cluster")
struct EmbeddedClusterTests {
    /// A fresh folder the service user can enter (0755), removed afterwards.
    static func makeHome() throws -> String {
        var template = Array("/tmp/sleepledger-cluster-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw ClusterError("mkdtemp failed") }
        let home = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
        chmod(home, 0o755)
        return home
    }

    static func query(_ conninfo: String) throws -> Int? {
        let connection = try Connection(conninfo: conninfo)
        return try connection.execute("SELECT 40 + 2").single().int(0)
    }

    /// Reads a /proc file with read(2): Foundation leaks its buffer on size-0 files.
    static func readProcFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    @Test("start creates and serves the cluster; stop, restart, stale pid files and a killed postmaster are handled")
    func lifecycle() throws {
        let home = try Self.makeHome()
        let cluster = EmbeddedCluster(home: home + "/ledger", isDurable: false)
        defer {
            try? cluster.stop()
            try? FileManager.default.removeItem(atPath: home)
        }
        #expect(cluster.status() == .notInitialized)

        let conninfo = try cluster.start()
        #expect(conninfo == cluster.conninfo())
        #expect(conninfo.contains("dbname='sleepledger'"))
        guard case .running(let firstPID) = cluster.status() else {
            Issue.record("not running after start")
            return
        }
        #expect(try Self.query(conninfo) == 42)
        #expect(try Self.query(cluster.url()) == 42)
        // Socket only: no TCP listener, socket folder private to its owner.
        let settings = try Connection(conninfo: conninfo).execute(
            "SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_permissions') AS mode"
        ).single()
        #expect(try settings.string("listen") == "")
        #expect(try settings.string("mode") == "0700")
        var info = stat()
        #expect(stat(cluster.socketFolder, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        if geteuid() == 0 {
            // As root the server runs as the unprivileged service user.
            #expect(getpwnam("sleepledger").map { $0.pointee.pw_uid } == info.st_uid)
        }

        // A second start while running is a no-op.
        #expect(try cluster.start() == conninfo)
        #expect(cluster.status() == .running(pid: firstPID))

        try cluster.stop()
        #expect(cluster.status() == .stopped)
        #expect(throws: PostgresError.self) { try Self.query(conninfo) }
        try cluster.start()
        #expect(try Self.query(conninfo) == 42)

        // A postmaster.pid naming a live process that is not our postgres (this test process).
        try cluster.stop()
        try "\(getpid())\n\(cluster.dataFolder)\n1700000000\n5432\n\(cluster.socketFolder)\n\n".write(
            toFile: cluster.dataFolder + "/postmaster.pid", atomically: true, encoding: .utf8)
        #expect(cluster.status() == .stopped)
        try cluster.start()
        #expect(try Self.query(conninfo) == 42)

        // kill -9 of the postmaster leaves its pid file (and maybe orphaned children) behind.
        guard case .running(let pid) = cluster.status() else {
            Issue.record("not running after start over a bogus pid file")
            return
        }
        #expect(kill(pid, SIGKILL) == 0)
        for _ in 0..<100 where cluster.status() != .stopped { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: cluster.dataFolder + "/postmaster.pid"))
        try cluster.start()
        #expect(try Self.query(conninfo) == 42)
        guard case .running(let newPID) = cluster.status() else {
            Issue.record("not running after restart from a crash")
            return
        }
        #expect(newPID != pid)

        // A start that fails quotes the server log.
        try cluster.stop()
        let configurationFile = cluster.dataFolder + "/postgresql.conf"
        let original = try String(contentsOfFile: configurationFile, encoding: .utf8)
        try (original + "\nshared_buffers = 'plenty'\n").write(
            toFile: configurationFile, atomically: false, encoding: .utf8)
        let failure = #expect(throws: ClusterError.self) { try cluster.start() }
        #expect(failure?.detail?.contains("shared_buffers") == true)
        try original.write(toFile: configurationFile, atomically: false, encoding: .utf8)
        try cluster.start()
        #expect(try Self.query(conninfo) == 42)
    }

    @Test("two threads starting the same new cluster at once both succeed with one server")
    func concurrentStarts() async throws {
        let home = try Self.makeHome()
        let cluster = EmbeddedCluster(home: home, isDurable: false)
        defer {
            try? cluster.stop()
            try? FileManager.default.removeItem(atPath: home)
        }
        let results = try await onThreads(2) { _ in try cluster.start() }
        #expect(results.count == 2)
        #expect(Set(results).count == 1)
        guard case .running(let pid) = cluster.status() else {
            Issue.record("not running")
            return
        }
        let postmasters = try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init).filter {
            guard let cmdline = Self.readProcFile("/proc/\($0)/cmdline") else { return false }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.first?.hasSuffix("/postgres") == true && arguments.contains(cluster.dataFolder)
        }
        #expect(postmasters == [pid])
        #expect(try Self.query(results[0]) == 42)
    }

    @Test("the URL form percent-encodes the socket folder as the host")
    func urlForm() {
        let cluster = EmbeddedCluster(home: "/var/lib/sleep ledger")
        #expect(cluster.url() == "postgresql://sleepledger@%2Fvar%2Flib%2Fsleep%20ledger%2Frun:5432/sleepledger")
        #expect(cluster.url(database: "postgres").hasSuffix(":5432/postgres"))
        #expect(
            cluster.conninfo()
                == "host='/var/lib/sleep ledger/run' port=5432 dbname='sleepledger' user='sleepledger'")
    }

    @Test("a data folder whose socket path would pass 107 bytes is refused before anything is created")
    func socketPathTooLong() throws {
        let home = "/tmp/" + String(repeating: "d", count: 90)
        let cluster = EmbeddedCluster(home: home)
        let error = #expect(throws: ClusterError.self) { try cluster.start() }
        #expect(error?.message.contains("too long") == true)
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test(
        "as root, a folder the service user cannot enter is named with the fix",
        .enabled(if: geteuid() == 0, "only root runs the cluster as the service user"))
    func unreachableAncestor() throws {
        let home = try Self.makeHome()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let closed = home + "/closed"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        chmod(closed, 0o700)
        let cluster = EmbeddedCluster(home: closed + "/ledger")
        let error = #expect(throws: ClusterError.self) { try cluster.start() }
        #expect(error?.message.contains("cannot enter \(closed)") == true)
        #expect(error?.detail?.contains("chmod o+x \(closed)") == true)
        #expect(cluster.status() == .notInitialized)
        #expect(!FileManager.default.fileExists(atPath: closed + "/ledger"))
    }
}
