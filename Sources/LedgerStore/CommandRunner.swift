import Foundation
import Glibc

/// Runs the cluster's helper programs (initdb, pg_ctl, useradd) with Foundation.Process,
/// capturing their combined output into a temporary file so a failure can quote it.
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
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: CommandRunner.runuserPath)
            process.arguments = ["-u", user, "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        var template = Array((NSTemporaryDirectory() + "/sleepledger-command-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw StoreError(.clusterFailed, "cannot create a temporary file for command output: \(String(cString: strerror(errno)))")
        }
        let outputPath = template.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
        defer { unlink(outputPath) }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw StoreError(.clusterFailed, "cannot run \(executable): \(error)")
        }
        process.waitUntilExit()
        try? output.close()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Outcome(status: process.terminationStatus, output: text)
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
            throw StoreError(.clusterFailed, "\(what) failed with exit status \(outcome.status)", detail: tail)
        }
        return outcome.output
    }

    /// `runuser` from util-linux.
    static var runuserPath: String {
        let candidates: [String] = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        return candidates.first { access($0, X_OK) == 0 } ?? "/usr/sbin/runuser"
    }
}
