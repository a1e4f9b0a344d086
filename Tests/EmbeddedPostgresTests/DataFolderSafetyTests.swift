import EmbeddedPostgres
import Foundation
import Glibc
import Testing

/// A data folder that someone else owns or may write is refused before anything is
/// created or started, with a message naming the folder and the fix.
@Suite("Data folder ownership and modes")
struct DataFolderSafetyTests {
    /// One way to make a data folder unsafe, on a fresh home in a fresh 0755 folder.
    struct Unsafe: Sendable, CustomTestStringConvertible {
        var name: String
        /// Changes the fresh layout: `(parent, home)`.
        var prepare: @Sendable (_ parent: String, _ home: String) throws -> Void
        /// The folder the message must name, from `(parent, home)`.
        var folder: @Sendable (_ parent: String, _ home: String) -> String
        /// The fix the detail must hold, from the folder.
        var fix: @Sendable (_ folder: String) -> String
        var testDescription: String { name }

        /// A 0755 home whose `subfolder` has `mode`: refused with `chmod 0700`.
        static func subfolder(_ name: String, _ subfolder: String, mode: mode_t) -> Unsafe {
            Unsafe(
                name: name,
                prepare: { _, home in
                    try DataFolderSafetyTests.makeFolder(home, mode: 0o755)
                    try DataFolderSafetyTests.makeFolder(home + "/" + subfolder, mode: mode)
                }, folder: { _, home in home + "/" + subfolder }, fix: { "chmod 0700 \($0)" })
        }
    }

    static func makeFolder(_ path: String, mode: mode_t) throws {
        guard mkdir(path, mode) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        chmod(path, mode)
    }

    static let unsafeLayouts: [Unsafe] = [
        Unsafe(
            name: "a home writable by every user",
            prepare: { _, home in try makeFolder(home, mode: 0o777) }, folder: { _, home in home },
            fix: { "chmod go-w \($0)" }),
        Unsafe(
            name: "a home writable by its group",
            prepare: { _, home in try makeFolder(home, mode: 0o775) }, folder: { _, home in home },
            fix: { "chmod go-w \($0)" }),
        .subfolder("a run/ writable by every user", "run", mode: 0o777),
        .subfolder("a run/ open to its group", "run", mode: 0o750),
        .subfolder("a data/ writable by every user", "data", mode: 0o777),
        .subfolder("a log/ writable by every user", "log", mode: 0o777),
        Unsafe(
            name: "a run/ that is a symbolic link",
            prepare: { parent, home in
                try makeFolder(home, mode: 0o755)
                try makeFolder(parent + "/elsewhere", mode: 0o700)
                guard symlink(parent + "/elsewhere", home + "/run") == 0 else { throw POSIXError(.EIO) }
            }, folder: { _, home in home + "/run" }, fix: { "rm \($0)" }),
        Unsafe(
            name: "a folder above the home writable by every user, without the sticky bit",
            prepare: { parent, _ in chmod(parent, 0o777) }, folder: { parent, _ in parent },
            fix: { "chmod go-w \($0)" }),
    ]

    /// A fresh folder like the suite's own (mkdtemp, then 0755), holding `ledger` as the home.
    static func makeParent() throws -> String {
        var template = Array("/tmp/sleepledger-folders-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw ClusterError("mkdtemp failed") }
        let parent = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
        chmod(parent, 0o755)
        return parent
    }

    /// Expects `start()` and `checkFolders()` to refuse, naming `folder` and `fix`, and
    /// nothing of the cluster to be created.
    static func expectRefused(_ cluster: EmbeddedCluster, folder: String, fix: String) {
        let existedBefore = ["data", "log", "run"].map {
            FileManager.default.fileExists(atPath: cluster.home + "/" + $0)
        }
        for attempt in [{ try cluster.checkFolders() }, { _ = try cluster.start() }] as [() throws -> Void] {
            let error = #expect(throws: ClusterError.self) { try attempt() }
            #expect(
                error?.message.hasPrefix("refusing the data folder \(cluster.home): ") == true,
                "\(error?.message ?? "")")
            #expect(error?.message.contains(folder) == true, "\(error?.message ?? "")")
            #expect(error?.detail?.contains(fix) == true, "\(error?.detail ?? "")")
        }
        // Nothing started or created (and, should a regression start it, it is not left running).
        if case .running(let pid) = cluster.status() { kill(pid, SIGQUIT) }
        #expect(cluster.status() == .notInitialized)
        #expect(!FileManager.default.fileExists(atPath: cluster.home + "/cluster.lock"))
        let existsAfter = ["data", "log", "run"].map { FileManager.default.fileExists(atPath: cluster.home + "/" + $0) }
        #expect(existsAfter == existedBefore)
    }

    @Test(
        "an unsafe layout is refused with the folder and the fix, before anything is created", arguments: unsafeLayouts)
    func refused(_ unsafe: Unsafe) throws {
        let parent = try Self.makeParent()
        defer {
            chmod(parent, 0o755)
            try? FileManager.default.removeItem(atPath: parent)
        }
        let home = parent + "/ledger"
        try unsafe.prepare(parent, home)
        let folder = unsafe.folder(parent, home)
        Self.expectRefused(EmbeddedCluster(home: home, isDurable: false), folder: folder, fix: unsafe.fix(folder))
    }

    @Test("a home in a sticky world-writable folder (like /tmp) and the suite's own layout pass")
    func safeLayoutsPass() throws {
        let parent = try Self.makeParent()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        chmod(parent, 0o1777)
        try EmbeddedCluster(home: parent + "/ledger").checkFolders()
        chmod(parent, 0o755)
        try Self.makeFolder(parent + "/ledger", mode: 0o755)
        try EmbeddedCluster(home: parent + "/ledger").checkFolders()
        // PostgreSQL's group-readable data folder is accepted.
        if geteuid() != 0 {
            try Self.makeFolder(parent + "/ledger/data", mode: 0o750)
            try EmbeddedCluster(home: parent + "/ledger").checkFolders()
        }
    }

    /// Hands `path` to the user `nobody`.
    static func giveToNobody(_ path: String) throws {
        let nobody = try #require(getpwnam("nobody"))
        #expect(chown(path, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0)
    }

    @Test(
        "as root, a home, run/, data/, log/ or parent folder owned by another user is refused with the chown",
        .enabled(if: geteuid() == 0 && getpwnam("nobody") != nil, "only root can hand folders to nobody"),
        arguments: ["home", "run", "data", "log", "parent"])
    func ownedByAnotherUser(_ which: String) throws {
        let parent = try Self.makeParent()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let outer = parent + "/outer"
        try Self.makeFolder(outer, mode: 0o755)
        let home = outer + "/ledger"
        try Self.makeFolder(home, mode: 0o755)
        let folder: String
        let fix: String
        switch which {
        case "home":
            folder = home
            fix = "chown root: \(home)"
        case "parent":
            folder = outer
            fix = "chown root: \(outer)"
        default:
            folder = home + "/" + which
            try Self.makeFolder(folder, mode: 0o700)
            fix = "chown -R sleepledger: \(folder)"
        }
        try Self.giveToNobody(folder)
        let cluster = EmbeddedCluster(home: home, isDurable: false)
        let error = #expect(throws: ClusterError.self) { try cluster.start() }
        #expect(error?.message.contains("\(folder) belongs to nobody (uid ") == true, "\(error?.message ?? "")")
        #expect(error?.detail?.contains(fix) == true, "\(error?.detail ?? "")")
        Self.expectRefused(cluster, folder: folder, fix: fix)
    }

    @Test(
        "as root, a home the service user owns (systemd's StateDirectory=) is accepted",
        .enabled(
            if: geteuid() == 0 && getpwnam("sleepledger") != nil, "only root runs the cluster as the service user"))
    func homeOwnedByServiceUser() throws {
        let parent = try Self.makeParent()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let home = parent + "/ledger"
        try Self.makeFolder(home, mode: 0o750)
        let service = try #require(getpwnam("sleepledger"))
        #expect(chown(home, service.pointee.pw_uid, service.pointee.pw_gid) == 0)
        try EmbeddedCluster(home: home).checkFolders()
    }
}
