import Foundation
import Glibc
import LedgerServer
import LedgerStore
import LedgerTestSupport
import PostgresClient
import Synchronization
import Testing

/// A real `sleepledger serve` process on 127.0.0.1 (a port it picks) against a migrated
/// test database, with its own spool folder; plus a raw HTTP client for the requests curl
/// cannot make (no length, stalls).
final class ServerProcess: @unchecked Sendable {
    let environment: [String: String]
    let spool: URL
    let arguments: [String]
    private(set) var process: Process
    private(set) var port: Int = 0
    /// The metrics listener's port (picked by the server); `nil` when it is off.
    private(set) var metricsPort: Int?
    /// `https` when the server was started with `--tls-cert`.
    var scheme: String { arguments.contains("--tls-cert") ? "https" : "http" }
    /// Arguments curl gets before every request (`--cacert` for a TLS server).
    var curlOptions: [String] = []
    private let log = LogBuffer()

    /// What the process wrote, shared with the pipe's reading handler.
    final class LogBuffer: Sendable {
        private let text = Mutex("")
        func append(_ more: String) { text.withLock { $0 += more } }
        func reset() { text.withLock { $0 = "" } }
        var value: String { text.withLock { $0 } }
    }

    /// The superuser connection to the test database.
    var conninfo: String { environment["DATABASE_URL"] ?? "" }

    /// Starts a server with `arguments` on a fresh database (or `environment`'s).
    init(_ arguments: [String] = [], environment: [String: String]? = nil, spool: URL? = nil) throws {
        var environment = try environment ?? migratedEnvironment()
        environment["SLEEPLEDGER_SERVER_DATABASE_URL"] = try ConnectionString.settingParameter(
            "user", to: DatabaseRoles.server, in: environment["DATABASE_URL"] ?? "")
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        self.environment = environment
        self.spool =
            spool
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        self.arguments = arguments
        process = Process()
        try launch()
    }

    /// Starts (again) the process and waits until it listens.
    func launch() throws {
        process = Process()
        process.executableURL = builtProductsDirectory().appendingPathComponent("sleepledger")
        // Metrics on a port of its own for each server, unless the test chose.
        let metrics = arguments.contains("--metrics-listen") ? [] : ["--metrics-listen", "127.0.0.1:0"]
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--spool", spool.path] + metrics + arguments
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        log.reset()
        errors.fileHandleForReading.readabilityHandler = { [log] handle in
            let data = handle.availableData
            if !data.isEmpty { log.append(String(decoding: data, as: UTF8.self)) }
        }
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            if let match = logText.firstMatch(of: /serving on 127\.0\.0\.1:(\d+)/), let port = Int(match.1) {
                self.port = port
                metricsPort = logText.firstMatch(of: /metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/).flatMap {
                    Int($0.1)
                }
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw ServerProcessError(message: "the server did not start: \(logText)")
    }

    struct ServerProcessError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// What the server wrote to standard error so far.
    var logText: String { log.value }

    /// Sends `signal` and waits for the process to end (up to 60 s).
    func stop(_ signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let deadline = Date(timeIntervalSinceNow: 60)
        while process.isRunning, Date() < deadline { usleep(20_000) }
    }

    deinit {
        stop(SIGKILL)
        try? FileManager.default.removeItem(at: spool)
    }

    /// Files in the spool folder.
    var spoolFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: spool.path))?.sorted() ?? []
    }

    /// A connection to the test database as its superuser, for assertions.
    func connection() throws -> Connection { try Connection(conninfo: conninfo) }

    // MARK: Requests

    /// One response.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        /// Every `Set-Cookie` header, in order (``headers`` keeps only the last).
        var setCookies: [String] = []

        /// The body as JSON.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        /// The `import` object of an import response.
        var importObject: [String: Any] { json["import"] as? [String: Any] ?? [:] }
        /// The `error.code` of an error response.
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    /// Runs curl against the server; `arguments` come before the URL. A response of the
    /// API (``ServerRoutes/isAPI(path:)``) is checked against docs/openapi.json
    /// (``OpenAPIConformance``); the HTML pages are not the document's, and the page,
    /// browser and sign-in tests check them.
    func curl(
        _ path: String, _ arguments: [String] = [], token: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Response {
        let authorization = token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []
        let response = try Curl.response(
            curlOptions + authorization + arguments, url: "\(scheme)://127.0.0.1:\(port)\(path)", maxTime: 120)
        if ServerRoutes.isAPI(path: String(path.prefix { $0 != "?" })) {
            OpenAPIConformance.check(
                response, method: Self.method(of: arguments), path: path, sourceLocation: sourceLocation)
        }
        return response
    }

    /// The method curl sends for `arguments`.
    static func method(of arguments: [String]) -> String {
        if let flag = arguments.firstIndex(where: { $0 == "-X" || $0 == "--request" }), flag + 1 < arguments.count {
            return arguments[flag + 1]
        }
        if arguments.contains(where: { $0 == "-I" || $0 == "--head" }) { return "HEAD" }
        let sendsBody = ["-d", "--data", "--data-binary", "--data-raw", "-F", "--form", "-T", "--upload-file"]
        if arguments.contains(where: { sendsBody.contains($0) }) {
            return arguments.contains(where: { $0 == "-T" || $0 == "--upload-file" }) ? "PUT" : "POST"
        }
        return "GET"
    }

    /// Scrapes the metrics listener with curl: the exposition's text.
    func scrapeMetrics() throws -> String {
        guard let metricsPort else { throw ServerProcessError(message: "the metrics listener is off") }
        let (exitStatus, text) = try Curl.run([
            "-s", "-S", "--fail", "--max-time", "30", "http://127.0.0.1:\(metricsPort)/metrics",
        ])
        guard exitStatus == 0 else { throw ServerProcessError(message: "curl /metrics exited \(exitStatus)") }
        return text
    }

    /// Parses `HTTP/1.1 200 OK\r\nName: value\r\n\r\nbody`, skipping interim 100 responses.
    static func parse(_ text: String) -> Response {
        var rest = Substring(text)
        while true {
            guard let end = rest.range(of: "\r\n\r\n") else { return Response(status: 0, headers: [:], body: "") }
            let head = rest[..<end.lowerBound]
            rest = rest[end.upperBound...]
            let lines = head.components(separatedBy: "\r\n")
            let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            if status == 100 { continue }
            var headers: [String: String] = [:]
            var setCookies: [String] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[line[..<colon].lowercased()] = value
                if line[..<colon].lowercased() == "set-cookie" { setCookies.append(value) }
            }
            return Response(status: status, headers: headers, body: String(rest), setCookies: setCookies)
        }
    }

    /// Sends raw bytes over a new TCP connection and returns what comes back until the
    /// server closes it or `timeout` seconds pass. A request whose body is shorter than
    /// it declares is a client that stalls; `rest` is sent after `between` ran.
    func raw(
        _ bytes: [UInt8], timeout: Double = 10, then rest: [UInt8] = [], between: () -> Void = {}
    ) throws -> String {
        try Self.rawRequest(bytes, port: port, timeout: timeout, then: rest, between: between)
    }

    /// ``raw(_:timeout:then:between:)`` against any port.
    static func rawRequest(
        _ bytes: [UInt8], port: Int, timeout: Double = 10, then rest: [UInt8] = [], between: () -> Void = {}
    ) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerProcessError(message: "socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServerProcessError(message: "connect failed") }
        var timeval = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeval, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if !rest.isEmpty {
            between()
            _ = rest.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
