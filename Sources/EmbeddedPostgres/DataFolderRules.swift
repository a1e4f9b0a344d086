import Foundation
import Glibc

/// Who may own the data folder of the embedded cluster and its parts, and who may write
/// them (docs/operations.md, "Who may own the data folder").
///
/// Authentication is `trust` over the socket in `<home>/run`, so whoever can replace that
/// folder (or the home holding it, or any folder above) can put a socket of their own
/// there and receive the next connection, root's included. The rules:
///
/// - every folder above the home belongs to root or the invoking user, and nobody else may
///   write it unless its sticky bit is set (as on `/tmp`); the home's path and its real
///   path (symbolic links resolved) are both checked;
/// - the home is a folder belonging to the invoking user or root (as root: root or the
///   service user, which systemd's `StateDirectory=` makes its owner), writable by its
///   owner only;
/// - `run/`, `data/` and `log/` are real folders (not symbolic links) belonging to the user
///   the server runs as (the service user as root, else the invoking user); `run/` is
///   open to nobody else (0700), `data/` and `log/` writable by nobody else and closed to
///   others (0700; PostgreSQL's group-readable 0750 is accepted).
///
/// Folders that do not exist yet pass: the cluster creates them with these owners and
/// modes.
struct DataFolderRules: Sendable {
    /// A user by id and name.
    struct Owner: Sendable, Equatable {
        /// The user id.
        var uid: uid_t
        /// The user name (`uid N` when the password database has none).
        var name: String

        /// The user with this id (looked up with the thread-safe `getpwuid_r`).
        init(uid: uid_t) {
            self.uid = uid
            var buffer = [CChar](repeating: 0, count: 4096)
            let name = buffer.withUnsafeMutableBufferPointer { storage -> String? in
                var entry = passwd()
                var found: UnsafeMutablePointer<passwd>?
                guard let base = storage.baseAddress, getpwuid_r(uid, &entry, base, storage.count, &found) == 0,
                    found != nil, let name = entry.pw_name
                else { return nil }
                return String(cString: name)
            }
            self.name = name ?? "uid \(uid)"
        }

        /// The user with this id and name.
        init(uid: uid_t, name: String) {
            self.uid = uid
            self.name = name
        }
    }

    /// One broken rule: the folder, what is wrong, and the command that fixes it.
    struct Problem: Sendable, Equatable {
        /// The folder.
        var folder: String
        /// What is wrong, naming the folder.
        var reason: String
        /// What to run or do about it.
        var fix: String
    }

    /// The user running the tool.
    var invoking: Owner
    /// The user the server runs as: the service user as root, else the invoking user.
    var server: Owner

    /// The rules for this process: the effective user, and the service account as root.
    init(serviceAccount: ServiceAccount?) {
        invoking = Owner(uid: geteuid())
        server = serviceAccount.map { Owner(uid: $0.uid, name: $0.name) } ?? invoking
    }

    /// Rules for explicit users (tests).
    init(invoking: Owner, server: Owner) {
        self.invoking = invoking
        self.server = server
    }

    /// Who may own the home: the invoking user and root, and as root also the service user.
    var homeOwners: [Owner] {
        var owners = [invoking]
        if invoking.uid != 0 { owners.append(Owner(uid: 0, name: "root")) }
        if invoking.uid == 0, server.uid != 0 { owners.append(server) }
        return owners
    }

    /// Throws a ``ClusterError`` naming every broken rule and its fix; starts nothing.
    func check(home: String) throws {
        let problems = problems(home: home)
        guard !problems.isEmpty else { return }
        throw ClusterError(
            "refusing the data folder \(home): " + problems.map(\.reason).joined(separator: "; "),
            detail: "fix: " + problems.map(\.fix).joined(separator: "; ")
                + " (whoever owns or may write these folders could replace the server's socket and receive the next connection)"
        )
    }

    /// Every broken rule, in order from `/` down to `run/`, `data/` and `log/`.
    func problems(home: String) -> [Problem] {
        var problems: [Problem] = []
        var checked: Set<String> = []
        for path in [home, Self.realPath(home)] {
            for folder in Self.ancestors(of: path) where !checked.contains(folder) {
                checked.insert(folder)
                var info = stat()
                guard stat(folder, &info) == 0 else { continue }
                problems += check(folder, info, role: .ancestor)
            }
        }

        var info = stat()
        guard stat(home, &info) == 0 else { return problems }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return problems + [
                Problem(
                    folder: home, reason: "\(home) is not a folder", fix: "choose another SLEEPLEDGER_HOME")
            ]
        }
        problems += check(home, info, role: .home)

        for name in ["run", "data", "log"] {
            let folder = home + "/" + name
            guard lstat(folder, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFLNK {
                problems.append(
                    Problem(
                        folder: folder, reason: "\(folder) is a symbolic link, not a folder",
                        fix:
                            "remove the link with `rm \(Self.quoted(folder))` (SleepLedger creates the folder) or move the folder it points to into its place"
                    ))
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                problems.append(
                    Problem(
                        folder: folder, reason: "\(folder) is not a folder",
                        fix: "move \(Self.quoted(folder)) away"))
                continue
            }
            problems += check(folder, info, role: .serverFolder(name))
        }
        return problems
    }

    /// What a folder is to the cluster, which decides its owners, modes and fixes.
    enum Role: Sendable {
        /// A folder above the home.
        case ancestor
        /// The home itself.
        case home
        /// `run/`, `data/` or `log/`.
        case serverFolder(String)

        /// How a message names it.
        var name: String {
            switch self {
            case .ancestor: return "a folder above the data folder"
            case .home: return "the data folder"
            case .serverFolder("run"): return "the socket folder"
            case .serverFolder(let name): return "the server's \(name) folder"
            }
        }

        /// Mode bits nobody but the owner may have.
        var forbiddenBits: mode_t {
            switch self {
            case .ancestor, .home: return 0o022
            case .serverFolder("run"): return 0o077
            case .serverFolder: return 0o027
            }
        }
    }

    /// The owner and mode rules for one folder.
    private func check(_ folder: String, _ info: stat, role: Role) -> [Problem] {
        var problems: [Problem] = []
        let quoted = Self.quoted(folder)
        let owners: [Owner]
        switch role {
        case .ancestor:
            owners = invoking.uid == 0 ? [Owner(uid: 0, name: "root")] : [Owner(uid: 0, name: "root"), invoking]
        case .home: owners = homeOwners
        case .serverFolder: owners = [server]
        }
        if !owners.contains(where: { $0.uid == info.st_uid }) {
            let owner = Owner(uid: info.st_uid)
            let expected = owners.map(\.name).joined(separator: " or ")
            let fix: String
            switch role {
            case .ancestor:
                fix = "choose a SLEEPLEDGER_HOME whose parent folders belong to \(expected), or `chown root: \(quoted)`"
            case .home:
                fix = "`chown \(invoking.name): \(quoted)`, or choose another SLEEPLEDGER_HOME"
            case .serverFolder:
                fix = "`chown -R \(server.name): \(quoted)` if you trust what it holds, else move it away"
            }
            problems.append(
                Problem(
                    folder: folder,
                    reason: "\(role.name) \(folder) belongs to \(owner.name) (uid \(info.st_uid)), not to \(expected)",
                    fix: fix))
        }
        let mode = info.st_mode & 0o7777
        let isStickyAncestor: Bool
        if case .ancestor = role { isStickyAncestor = mode & S_ISVTX != 0 } else { isStickyAncestor = false }
        if mode & role.forbiddenBits != 0, !isStickyAncestor {
            let octal = "0" + String(mode & 0o777, radix: 8)
            let reason: String
            if mode & 0o002 != 0 {
                reason = "\(role.name) \(folder) is writable by every user (mode \(octal))"
            } else if mode & 0o020 != 0 {
                reason = "\(role.name) \(folder) is writable by its group (mode \(octal))"
            } else {
                reason = "\(role.name) \(folder) is open to other users (mode \(octal))"
            }
            let fix: String
            switch role {
            case .ancestor:
                fix = "`chmod go-w \(quoted)` (or `chmod +t \(quoted)` for a shared folder like /tmp)"
            case .home:
                fix = "`chmod go-w \(quoted)`"
            case .serverFolder:
                fix = "`chmod 0700 \(quoted)`"
            }
            problems.append(Problem(folder: folder, reason: reason, fix: fix))
        }
        return problems
    }

    /// `/`, `/a`, `/a/b` for `/a/b/c` (the folders above `path`, not `path` itself).
    static func ancestors(of path: String) -> [String] {
        var folders = ["/"]
        var folder = ""
        let components = path.split(separator: "/")
        for component in components.dropLast() {
            folder += "/" + component
            folders.append(folder)
        }
        return folders
    }

    /// `path` with symbolic links resolved as far as it exists; the rest appended as is.
    static func realPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while existing.count > 1 {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return ([base == "/" ? "" : base] + rest).joined(separator: "/")
            }
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        return path
    }

    /// `path` quoted for a shell when it holds anything but letters, digits and `/._-`.
    static func quoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (CharacterSet.alphanumerics.contains(scalar) || "/._-+".unicodeScalars.contains(scalar))
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
