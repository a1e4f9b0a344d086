import Foundation

/// curl as every test runs it: `/usr/bin/curl` with the arguments given, its standard output
/// collected and its standard error discarded (`-S` errors would only repeat the status).
enum Curl {
    /// Runs curl; its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (exitStatus: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// One request to `url` with the response's head written before its body (`-D -`),
    /// within `maxTime` seconds; `arguments` come before the URL.
    static func response(_ arguments: [String], url: String, maxTime: Int) throws -> ServerProcess.Response {
        let (_, output) = try run(["-s", "-S", "-D", "-", "--max-time", String(maxTime)] + arguments + [url])
        return ServerProcess.parse(output)
    }
}
