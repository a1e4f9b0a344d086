import Foundation
import LedgerCLI
import Synchronization

/// A console that keeps what a command prints, for assertions.
final class CapturedConsole: Sendable {
    private let output = Mutex("")
    private let errors = Mutex("")

    var console: Console {
        Console(
            writeOutput: { text in self.output.withLock { $0 += text } },
            writeError: { text in self.errors.withLock { $0 += text } })
    }

    var printed: String { output.withLock { $0 } }
    var errorText: String { errors.withLock { $0 } }
}

/// Runs `sleepledger` in-process with the given environment.
func runTool(_ arguments: [String], environment: [String: String] = [:]) -> (ExitCode, CapturedConsole) {
    let captured = CapturedConsole()
    let code = SleepLedgerTool.run(arguments: arguments, environment: environment, console: captured.console)
    return (code, captured)
}

/// The folder holding the built executables (next to the test bundle).
func builtProductsDirectory() -> URL {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("sleepledger").path) {
            return url
        }
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug")
}

/// Runs a built executable as a real process; returns exit status, stdout and stderr.
/// `input`, when given, is its standard input (a pipe that ends after it).
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String], input: String? = nil)
    throws -> (status: Int32, output: String, error: String)
{
    let process = Process()
    process.executableURL = builtProductsDirectory().appendingPathComponent(executable)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = input.map { _ in Pipe() }
    if let stdin { process.standardInput = stdin }
    try process.run()
    if let stdin, let input {
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
    )
}
