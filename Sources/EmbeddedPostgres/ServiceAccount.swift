import Foundation
import Glibc

/// The unprivileged system user that owns and runs the embedded cluster when the tool runs
/// as root (initdb and postgres refuse to run as root).
struct ServiceAccount: Sendable {
    var name: String
    var uid: uid_t
    var gid: gid_t
    var groups: [gid_t]

    /// Looks the user up in the password database.
    static func lookup(_ name: String) -> ServiceAccount? {
        guard let entry = getpwnam(name) else { return nil }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) == -1 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return ServiceAccount(name: name, uid: uid, gid: gid, groups: Array(groups.prefix(Int(max(count, 0)))))
    }

    /// Looks the user up, creating it with `useradd --system` when missing.
    static func ensure(_ name: String, runner: CommandRunner) throws -> ServiceAccount {
        if let account = lookup(name) { return account }
        let candidates: [String] = ["/usr/sbin/useradd", "/sbin/useradd"]
        let useradd = candidates.first { access($0, X_OK) == 0 } ?? "/usr/sbin/useradd"
        let outcome = try runner.run(
            useradd, ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
        // Another process may have created it meanwhile (useradd exits 9): look again.
        if let account = lookup(name) { return account }
        throw ClusterError(
            "cannot create the service user \(name) (useradd exit status \(outcome.status))",
            detail: outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether the permission bits of `path` let this user search (traverse) it. ACLs are
    /// not read here; callers confirm a `false` with a real check.
    func canTraverse(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let mode = info.st_mode
        if info.st_uid == uid { return mode & S_IXUSR != 0 }
        if groups.contains(info.st_gid) || info.st_gid == gid { return mode & S_IXGRP != 0 }
        return mode & S_IXOTH != 0
    }
}
