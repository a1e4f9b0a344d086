import Foundation
import Synchronization
import Testing

/// Checks the server tests' responses against docs/openapi.json: one validator process
/// (Tests/LedgerCLITests/openapi-conformance.py on Debian's python3-jsonschema) per test
/// process, asked once per response. A response the document does not describe (route,
/// status, content type or JSON body) is a recorded test failure at the request.
final class OpenAPIConformance: Sendable {
    /// The one validator of this test process.
    static let shared = OpenAPIConformance()

    /// The repository's OpenAPI document.
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")

    private struct Validator {
        var process: Process
        var input: FileHandle
        var output: FileHandle
        var pending: [UInt8] = []
    }

    private let validator: Mutex<Validator?> = Mutex(nil)

    /// What does not conform in one response, or `nil` when it conforms.
    func problem(method: String, path: String, status: Int, contentType: String?, body: String) throws -> String? {
        struct Request: Encodable {
            var method: String
            var path: String
            var status: Int
            var contentType: String?
            var body: String

            enum CodingKeys: String, CodingKey {
                case method, path, status, body
                case contentType = "content_type"
            }
        }
        let line =
            try JSONEncoder().encode(
                Request(method: method, path: path, status: status, contentType: contentType, body: body)) + [10]
        let answer = try validator.withLock { validator -> String in
            if validator == nil { validator = try Self.start() }
            try validator!.input.write(contentsOf: line)
            return try Self.readLine(&validator!)
        }
        return answer == "ok" ? nil : answer
    }

    private static func start() throws -> Validator {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let script = documentURL.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/LedgerCLITests/openapi-conformance.py")
        process.arguments = ["-u", script.path, documentURL.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        return Validator(process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading)
    }

    private static func readLine(_ validator: inout Validator) throws -> String {
        while true {
            if let newline = validator.pending.firstIndex(of: 10) {
                let line = String(decoding: validator.pending[..<newline], as: UTF8.self)
                validator.pending.removeSubrange(...newline)
                return line
            }
            let more = validator.output.availableData
            guard !more.isEmpty else { return "the validator stopped" }
            validator.pending += more
        }
    }

    /// Records a test failure when `response` to `method path` does not conform.
    static func check(
        _ response: ServerProcess.Response, method: String, path: String, sourceLocation: SourceLocation
    ) {
        guard response.status != 0 else { return }
        do {
            if let problem = try shared.problem(
                method: method, path: path, status: response.status, contentType: response.headers["content-type"],
                body: response.body)
            {
                Issue.record("not as docs/openapi.json says: \(problem)", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("the OpenAPI validator failed: \(error)", sourceLocation: sourceLocation)
        }
    }
}
