import Foundation
import Glibc
import Testing

/// Runs a browser test script (`Tests/Browser/*.py`: headless Chromium driven by Debian's
/// python3-selenium, through `Tests/Browser/harness.py`) against a running server, with
/// Debian's own `/usr/bin/python3` (a python3 earlier on PATH may lack the Debian packages).
/// Screenshots go to a temporary folder of the run, kept for a look (its path is in the
/// output); a failing script fails the test with everything it printed.
enum BrowserHarness {
    /// The folder of the browser test scripts.
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser")

    /// What a script run left: its exit status, its output and the screenshot folder.
    struct Run {
        var status: Int32
        var output: String
        var screenshots: URL

        /// The values the script printed with `report(name, value)` (harness.py): one JSON
        /// value on a line `name: <JSON>`, in order.
        func reports(_ name: String) -> [Any] {
            output.split(separator: "\n").compactMap { line -> Any? in
                guard line.hasPrefix(name + ": ") else { return nil }
                return try? JSONSerialization.jsonObject(
                    with: Data(line.dropFirst(name.count + 2).utf8), options: [.fragmentsAllowed])
            }
        }
    }

    /// Runs `script` against `server` signing in as `handle` with `password`, with the
    /// script's own `arguments` after the common ones, for at most `timeout` seconds (killed
    /// after that).
    static func run(
        _ script: String, server: ServerProcess, handle: String, password: String, arguments: [String] = [],
        timeout: Double = 180
    ) throws -> Run {
        let screenshots = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sleepledger-screenshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            [
                "-u", scripts.appendingPathComponent(script).path, "--base-url", "http://127.0.0.1:\(server.port)",
                "--screenshots", screenshots.path, "--handle", handle, "--password", password,
            ] + arguments
        process.currentDirectoryURL = scripts
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        let collected = ServerProcess.LogBuffer()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                finished.signal()
            } else {
                collected.append(String(decoding: data, as: UTF8.self))
            }
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            collected.append("\n(killed after \(Int(timeout)) s)\n")
        }
        process.waitUntilExit()
        _ = finished.wait(timeout: .now() + 5)
        return Run(
            status: process.terminationStatus, output: collected.value + "\nscreenshots: \(screenshots.path)\n",
            screenshots: screenshots)
    }
}
