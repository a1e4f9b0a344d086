import CProcessShims
import Foundation
import Glibc

/// Runs the cluster's helper programs (initdb, pg_ctl, useradd, runuser) and captures their
/// combined output into a temporary file so a failure can quote it.
///
/// It uses `posix_spawn` with every inherited descriptor above stderr closed
/// (`posix_spawn_file_actions_addclosefrom_np`) and `waitpid`, not Foundation.Process:
/// Process learns of a child's exit through a descriptor the child inherits, and the
/// postmaster that `pg_ctl start` leaves running would inherit it too, so Process would
/// wait until the server stops.
struct CommandRunner: Sendable {
    /// The result of one run.
    struct Outcome: Sendable {
        var status: Int32
        var output: String
    }

    /// Runs `executable` with `arguments`; as `user` through `runuser -u` when given.
    func run(
        _ executable: String, _ arguments: [String], asUser user: String? = nil, workingDirectory: String? = nil
    ) throws -> Outcome {
        let program: String
        let argv: [String]
        if let user {
            program = CommandRunner.runuserPath
            argv = [program, "-u", user, "--", executable] + arguments
        } else {
            program = executable
            argv = [executable] + arguments
        }
        var template = Array("/tmp/sleepledger-command-XXXXXX".utf8CString)
        let outputDescriptor = mkstemp(&template)
        guard outputDescriptor >= 0 else {
            throw ClusterError("cannot create a temporary file for command output: \(CommandRunner.lastError())")
        }
        let outputPath = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
        _ = fcntl(outputDescriptor, F_SETFD, FD_CLOEXEC)
        defer {
            close(outputDescriptor)
            unlink(outputPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 2)
        // Nothing above stderr reaches the child: see the type's documentation.
        var failed = CProcessShims_addCloseFrom(&actions, 3)
        if failed == 0, let workingDirectory { failed = CProcessShims_addChangeDirectory(&actions, workingDirectory) }
        guard failed == 0 else {
            throw ClusterError("cannot prepare to run \(program): \(String(cString: strerror(failed)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling and an empty mask, whatever the
        // caller's threads have set.
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, &attributes, cArguments, environ)
        guard spawned == 0 else {
            throw ClusterError("cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw ClusterError("waiting for \(program) failed: \(CommandRunner.lastError())")
            }
        }
        let exitStatus = CProcessShims_exitStatus(status)
        let text = SmallFile.text(atPath: outputPath) ?? ""
        return Outcome(status: exitStatus, output: text)
    }

    /// Runs and throws `clusterFailed` quoting the tail of the output when the exit status is not 0.
    @discardableResult
    func check(
        _ what: String, _ executable: String, _ arguments: [String], asUser user: String? = nil,
        workingDirectory: String? = nil
    ) throws -> String {
        let outcome = try run(executable, arguments, asUser: user, workingDirectory: workingDirectory)
        guard outcome.status == 0 else {
            let tail = String(outcome.output.suffix(2000)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClusterError("\(what) failed with exit status \(outcome.status)", detail: tail)
        }
        return outcome.output
    }

    /// `runuser` from util-linux.
    static var runuserPath: String {
        let candidates: [String] = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        return candidates.first { access($0, X_OK) == 0 } ?? "/usr/sbin/runuser"
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}
