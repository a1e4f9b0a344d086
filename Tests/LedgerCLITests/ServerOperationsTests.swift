import Foundation
import Glibc
import LedgerCLI
import LedgerTestSupport
import Testing

/// What an operator runs around the server, through the real binary: the metrics
/// listener scraped with curl, TLS on the main listener, and Caddy in front.
@Suite("sleepledger serve: metrics, TLS, Caddy", .serialized)
struct ServerOperationsTests {
    static let csvHead = "sourceName,startDate,endDate,value\n"

    /// A CSV of one night on `day` (1...28 of January 2024).
    static func night(_ day: Int) -> String {
        let date = String(format: "2024-01-%02d", day)
        let next = String(format: "2024-01-%02d", day + 1)
        return csvHead + "W,\(date)T23:00:00Z,\(next)T07:00:00Z,HKCategoryValueSleepAnalysisAsleepCore\n"
    }

    /// The exposition's samples by series (`name{labels}`), checked by an independent
    /// parser first (the Prometheus Python client's, which refuses malformed text).
    static func samples(_ text: String) throws -> [String: Double] {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.arguments = [
            "-c",
            "import sys\nfrom prometheus_client.parser import text_string_to_metric_families as parse\n"
                + "print(sum(len(f.samples) for f in parse(sys.stdin.read())))",
        ]
        let input = Pipe()
        let output = Pipe()
        check.standardInput = input
        check.standardOutput = output
        check.standardError = output
        try check.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "the Prometheus parser refused the exposition: \(said)")
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        #expect(Int(said.trimmingCharacters(in: .whitespacesAndNewlines)) == samples.count)
        return samples
    }

    @Test("metrics: requests by route template, upload bytes, the queue across users, jobs, imports and rollups")
    func metricsScraped() throws {
        // A server that only receives: two users' uploads wait in the queue.
        let receiving = try ServerProcess(["--workers", "0", "--db-sessions", "5"])
        let anna = try ServerTests.user("anna", receiving)
        let ben = try ServerTests.user("ben", receiving, scope: "ingest")
        let before = try Self.samples(try receiving.scrapeMetrics())
        #expect(before["sleepledger_database_up"] == 1)
        #expect(before[#"sleepledger_import_queue_jobs{state="queued"}"#] == 0)
        #expect(before["sleepledger_database_pool_sessions_capacity"] == 5)
        #expect(before[#"sleepledger_build_info{version="0.1.0"}"#] == 1)
        #expect((before["sleepledger_start_time_seconds"] ?? 0) > 1_700_000_000)

        for _ in 0..<3 { #expect(try receiving.curl("/healthz").status == 200) }
        #expect(try receiving.curl("/api/v1/imports/424242", token: anna).status == 404)
        #expect(try receiving.curl("/wp-login.php/secret-path").status == 404)
        #expect(try receiving.curl("/api/v1/imports", ["-X", "PUT"], token: anna).status == 405)
        var uploaded = 0
        for (token, day) in [(anna, 1), (ben, 2)] {
            let body = Self.night(day)
            uploaded += body.utf8.count
            let response = try receiving.curl(
                "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", body], token: token)
            #expect(response.status == 202, "\(response.body)")
        }
        let scraped = try receiving.scrapeMetrics()
        let after = try Self.samples(scraped)
        func moved(_ series: String) -> Double { (after[series] ?? 0) - (before[series] ?? 0) }
        #expect(moved(#"sleepledger_http_requests_total{route="/healthz",method="GET",status="200"}"#) == 3)
        #expect(moved(#"sleepledger_http_request_duration_seconds_count{route="/healthz"}"#) == 3)
        #expect(moved(#"sleepledger_http_requests_total{route="/api/v1/imports/{id}",method="GET",status="404"}"#) == 1)
        #expect(moved(#"sleepledger_http_requests_total{route="unmatched",method="GET",status="404"}"#) == 1)
        #expect(moved(#"sleepledger_http_requests_total{route="/api/v1/imports",method="PUT",status="405"}"#) == 1)
        #expect(moved(#"sleepledger_http_requests_total{route="/api/v1/imports",method="POST",status="202"}"#) == 2)
        #expect(moved(#"sleepledger_http_upload_bytes_total{route="/api/v1/imports"}"#) == Double(uploaded))
        // Raw paths never become label values.
        #expect(!scraped.contains("424242") && !scraped.contains("wp-login"))
        // The queue is counted across users although the server's role sees one user at a time.
        #expect(after[#"sleepledger_import_queue_jobs{state="queued"}"#] == 2)
        #expect((after["sleepledger_import_queue_oldest_age_seconds"] ?? -1) >= 0)
        #expect(after["sleepledger_import_workers"] == 0)
        receiving.stop()
        // The scrapes themselves are not in the access log.
        #expect(!receiving.logText.contains("\"GET /metrics"))

        // A server with a worker imports both, rolls both users up, and counts it.
        let importing = try ServerProcess(
            ["--workers", "1"], environment: receiving.environment, spool: receiving.spool)
        let deadline = Date(timeIntervalSinceNow: 60)
        var done = try Self.samples(try importing.scrapeMetrics())
        while done[#"sleepledger_rollups_total{outcome="succeeded"}"#] != 2, Date() < deadline {
            usleep(100_000)
            done = try Self.samples(try importing.scrapeMetrics())
        }
        #expect(done[#"sleepledger_import_jobs_total{outcome="done"}"#] == 2)
        #expect(done[#"sleepledger_import_jobs_total{outcome="failed"}"#] == 0)
        #expect(done["sleepledger_import_duration_seconds_count"] == 2)
        #expect(done[#"sleepledger_import_duration_seconds_bucket{le="+Inf"}"#] == 2)
        #expect(done[#"sleepledger_rollups_total{outcome="succeeded"}"#] == 2)
        #expect(done["sleepledger_rollup_duration_seconds_count"] == 2)
        #expect(done[#"sleepledger_import_queue_jobs{state="queued"}"#] == 0)
        #expect(done["sleepledger_import_queue_oldest_age_seconds"] == 0)
        #expect(done["sleepledger_import_workers"] == 1)
        // A HEAD scrape, and anything but /metrics, on the metrics listener.
        let port = try #require(importing.metricsPort)
        let head = try ServerProcess.rawRequest(
            Array("HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), port: port)
        #expect(head.hasPrefix("HTTP/1.1 200") && head.contains("text/plain; version=0.0.4"))
        let other = try ServerProcess.rawRequest(
            Array("GET /api/v1/imports HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), port: port)
        #expect(other.hasPrefix("HTTP/1.1 404"))
    }

    @Test("--metrics-listen off: no metrics listener; a taken metrics port stops the start with a reason")
    func metricsListenerOffAndTaken() throws {
        let off = try ServerProcess(["--workers", "0", "--metrics-listen", "off"])
        #expect(off.metricsPort == nil)
        #expect(!off.logText.contains("metrics on"))
        let taken = try ServerProcess(["--workers", "0"], environment: off.environment)
        let port = try #require(taken.metricsPort)
        var environment = off.environment
        environment["SLEEPLEDGER_SERVER_DATABASE_URL"] = off.environment["SLEEPLEDGER_SERVER_DATABASE_URL"]
        let (code, captured) = runTool(
            [
                "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:\(port)", "--spool",
                off.spool.path + "-second",
            ], environment: environment)
        #expect(code == .unavailable)
        #expect(captured.errorText.contains("cannot listen on 127.0.0.1:\(port)"), "\(captured.errorText)")
    }

    /// Writes a throwaway self-signed certificate for 127.0.0.1 and its key (openssl CLI).
    static func certificate(in folder: URL, name: String = "server") throws -> (certificate: String, key: String) {
        let certificate = folder.appendingPathComponent("\(name).crt").path
        let key = folder.appendingPathComponent("\(name).key").path
        try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        return (certificate, key)
    }

    /// Runs a program to its end; throws unless it exits 0.
    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerProcess.ServerProcessError(message: "\(program) \(arguments.first ?? ""): \(said)")
        }
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("TLS: /healthz and uploads over https with the certificate trusted; plain http to the TLS port fails")
    func tls() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try Self.certificate(in: folder)
        let server = try ServerProcess(["--workers", "0", "--tls-cert", certificate, "--tls-key", key])
        server.curlOptions = ["--cacert", certificate]
        #expect(server.logText.contains("public URL https://127.0.0.1:\(server.port)"), "\(server.logText)")
        let health = try server.curl("/healthz")
        #expect(health.status == 200 && health.json["status"] as? String == "ok")
        let token = try ServerTests.user("anna", server)
        let upload = try server.curl(
            "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", Self.night(3)], token: token)
        #expect(upload.status == 202)
        #expect(upload.headers["location"]?.hasPrefix("https://127.0.0.1:\(server.port)/api/v1/imports/") == true)
        // Without the certificate curl refuses the server; plain HTTP gets no HTTP answer.
        server.curlOptions = []
        #expect(try server.curl("/healthz").status == 0)
        let plain = try server.raw(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(!plain.hasPrefix("HTTP/"))
        // The metrics listener stays plain HTTP on loopback.
        #expect(try Self.samples(try server.scrapeMetrics())["sleepledger_database_up"] == 1)
        server.stop()
        #expect(server.logText.contains("\"GET /healthz\" 200"))
    }

    @Test(
        "TLS files that cannot serve stop the start with the file and the reason, never the key's content",
        arguments: [
            ("missing certificate", ExitCode.noInput, "cannot read the TLS certificate"),
            ("key is a folder", .noInput, "cannot read the TLS key"),
            ("certificate is not PEM", .dataError, "is no PEM certificate"),
            ("empty key", .dataError, "is empty"),
            ("encrypted key", .dataError, "is no PEM private key, or is encrypted"),
            ("key of another certificate", .dataError, "does not belong to the certificate"),
            ("certificate without key", .usage, "TLS needs both a certificate and a key"),
        ])
    func tlsFileErrors(situation: String, exit: ExitCode, message: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var (certificate, key) = try Self.certificate(in: folder)
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        var keyArguments: [String]?
        switch situation {
        case "missing certificate": certificate = folder.appendingPathComponent("missing.crt").path
        case "key is a folder": key = folder.path
        case "certificate is not PEM":
            try "not a certificate\n".write(toFile: certificate, atomically: true, encoding: .utf8)
        case "empty key": try "".write(toFile: key, atomically: true, encoding: .utf8)
        case "encrypted key":
            let encrypted = folder.appendingPathComponent("encrypted.key").path
            try Self.run(
                "/usr/bin/openssl", ["pkey", "-in", key, "-out", encrypted, "-aes256", "-passout", "pass:secret"])
            key = encrypted
        case "key of another certificate": key = try Self.certificate(in: folder, name: "other").key
        default: keyArguments = []
        }
        let arguments =
            ["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "off", "--spool", folder.path + "/spool"]
            + ["--tls-cert", certificate] + (keyArguments ?? ["--tls-key", key])
        let (code, captured) = runTool(arguments, environment: ["DATABASE_URL": "host=/nonexistent dbname=none"])
        #expect(code == exit, "\(captured.errorText)")
        #expect(captured.errorText.contains(message), "\(captured.errorText)")
        for line in keyText.split(separator: "\n") where !line.hasPrefix("-----") {
            #expect(!captured.errorText.contains(line))
        }
        #expect(!captured.errorText.contains("PRIVATE KEY"))
    }

    static let caddy = "/usr/bin/caddy"
    static var caddyfile: String { TestDatabase.repositoryRoot + "/deploy/caddy/Caddyfile" }

    @Test(
        "deploy/caddy/Caddyfile is valid and formatted as caddy fmt writes it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: caddy), "needs caddy (deploy/install-deps.sh)"))
    func caddyfileValid() throws {
        let home = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_CONFIG_HOME": home.path]
        try Self.run(
            Self.caddy, ["validate", "--config", Self.caddyfile, "--adapter", "caddyfile"], environment: environment)
        let formatted = home.appendingPathComponent("Caddyfile")
        try FileManager.default.copyItem(atPath: Self.caddyfile, toPath: formatted.path)
        try Self.run(Self.caddy, ["fmt", "--overwrite", formatted.path], environment: environment)
        #expect(
            try String(contentsOf: formatted, encoding: .utf8)
                == String(contentsOfFile: Self.caddyfile, encoding: .utf8))
    }

    /// A free TCP port on 127.0.0.1 (bound and released; the caller binds it next).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw ServerProcess.ServerProcessError(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test(
        "Caddy with deploy/caddy/Caddyfile in front: https to the client, X-Forwarded-* believed from 127.0.0.1",
        .enabled(if: FileManager.default.isExecutableFile(atPath: caddy), "needs caddy (deploy/install-deps.sh)"))
    func behindCaddy() throws {
        let server = try ServerProcess(["--workers", "0", "--trusted-proxy", "127.0.0.1"])
        let token = try ServerTests.user("anna", server)
        let home = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let httpsPort = try Self.freePort()
        let httpPort = try Self.freePort()
        // The shipped file with three changes for a test: a local CA instead of ACME (no
        // trust store touched, no admin endpoint, ports of its own), 127.0.0.1 as the site,
        // and the test server as the upstream. Each change must apply.
        var text = try String(contentsOfFile: Self.caddyfile, encoding: .utf8)
        let changes = [
            (
                "{\n\t# The ACME",
                "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tauto_https disable_redirects\n"
                    + "\thttp_port \(httpPort)\n\thttps_port \(httpsPort)\n\tstorage file_system \(home.path)/data\n"
                    + "\t# The ACME"
            ),
            ("\nsleep.example.org {", "\n127.0.0.1:\(httpsPort) {"),
            ("reverse_proxy 127.0.0.1:8080 {", "reverse_proxy 127.0.0.1:\(server.port) {"),
        ]
        for (original, replacement) in changes {
            try #require(text.contains(original), "the Caddyfile no longer has \(original)")
            text = text.replacingOccurrences(of: original, with: replacement)
        }
        let config = home.appendingPathComponent("Caddyfile")
        try text.write(to: config, atomically: true, encoding: .utf8)
        let caddy = Process()
        caddy.executableURL = URL(fileURLWithPath: Self.caddy)
        caddy.arguments = ["run", "--config", config.path, "--adapter", "caddyfile"]
        caddy.environment = ["HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_CONFIG_HOME": home.path]
        let log = home.appendingPathComponent("caddy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        caddy.standardOutput = logHandle
        caddy.standardError = logHandle
        try caddy.run()
        defer {
            caddy.terminate()
            caddy.waitUntilExit()
        }
        let root = home.path + "/data/pki/authorities/local/root.crt"
        func viaCaddy(_ path: String, _ arguments: [String] = []) throws -> ServerProcess.Response {
            try Curl.response(
                ["--cacert", root, "-H", "Authorization: Bearer \(token)"] + arguments,
                url: "https://127.0.0.1:\(httpsPort)\(path)", maxTime: 30)
        }
        var health = ServerProcess.Response(status: 0, headers: [:], body: "")
        let deadline = Date(timeIntervalSinceNow: 30)
        while health.status != 200, Date() < deadline, caddy.isRunning {
            usleep(200_000)
            if FileManager.default.fileExists(atPath: root) { health = try viaCaddy("/healthz") }
        }
        #expect(
            health.status == 200,
            "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let upload = try viaCaddy("/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", Self.night(5)])
        #expect(upload.status == 202, "\(upload.body)")
        // No --public-url: the Location is what Caddy says the client used.
        #expect(
            upload.headers["location"]?.hasPrefix("https://127.0.0.1:\(httpsPort)/api/v1/imports/") == true,
            "\(upload.headers)")
    }
}
