import Foundation
import Glibc
import Testing

/// The connection model against a real `sleepledger serve` (issue 20, F1, F5, F7): what
/// a slow or malformed client gets, and what others get meanwhile.
@Suite("sleepledger serve: slow clients, malformed heads, HSTS", .serialized)
struct ConnectionServerTests {
    @Test("a head not complete after --head-timeout is closed, though it sends a byte every 300 ms")
    func headDeadline() throws {
        let server = try ServerProcess(["--head-timeout", "1", "--workers", "0"])
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(server.port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        let started = Date()
        var sent = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8)
        // libmicrohttpd's idle timeout (30 s) restarts with each byte; the head deadline does not.
        while Date().timeIntervalSince(started) < 20,
            sent.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0
        {
            sent = Array("X".utf8)
            usleep(300_000)
        }
        #expect(Date().timeIntervalSince(started) < 5)
        let metrics = try server.scrapeMetrics()
        #expect(metrics.contains(#"sleepledger_http_connections_cut_total{reason="head_timeout"} 1"#))
    }

    /// Raw heads libmicrohttpd 0.9.75 would frame or accept, and that the server refuses.
    static let malformedHeads = [
        "POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
        "POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Length : 3\r\n\r\nabc",
        "GET /healthz HTTP/1.1\r\n\r\n",
        "POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]

    @Test("two Content-Lengths, whitespace before a colon, HTTP/1.1 without Host, a length beside chunks: 400")
    func malformedHeadsAreRefused() throws {
        let server = try ServerProcess(["--workers", "0"])
        for head in Self.malformedHeads {
            let answer = try server.raw(Array(head.utf8), timeout: 10)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(head.debugDescription) got \(answer.prefix(40))")
        }
        #expect(
            try server.raw(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), timeout: 10)
                .hasPrefix(
                    "HTTP/1.1 200"))
    }

    @Test("past --max-anonymous requests without an account in progress, the next gets 503; /healthz still answers")
    func anonymousLimit() throws {
        let server = try ServerProcess(["--max-anonymous", "1", "--workers", "0"])
        let form = "handle=anna&password=wrong"
        var second = ""
        var healthz = 0
        // One sign-in whose body is still arriving holds the only place.
        let first = try server.raw(
            Array(
                ("POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\nhandle").utf8),
            timeout: 20, then: Array("=anna&password=wrong".utf8)
        ) {
            usleep(500_000)
            second =
                (try? server.raw(
                    Array(
                        ("POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)").utf8), timeout: 10)) ?? ""
            healthz = (try? server.curl("/healthz").status) ?? 0
        }
        #expect(second.hasPrefix("HTTP/1.1 503"))
        #expect(second.contains("Retry-After: 5"))
        #expect(healthz == 200)
        // The first, once its body arrived, was answered as any sign-in (not refused).
        #expect(!first.hasPrefix("HTTP/1.1 503"))
        #expect(first.hasPrefix("HTTP/1.1 "))
    }

    @Test("an upload still being received counts towards --max-pending: the next is 429 from its head")
    func pendingCountsUploadsInFlight() throws {
        let server = try ServerProcess(["--max-pending", "1", "--workers", "0"])
        let token = try ServerTests.user("anna", server)
        var second: ServerProcess.Response?
        _ = try server.raw(
            Array(
                ("POST /api/v1/imports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: text/csv\r\nContent-Length: 100000\r\nConnection: close\r\n\r\nsourceName").utf8),
            timeout: 5, then: Array(",".utf8)
        ) {
            usleep(500_000)
            second = try? server.curl(
                "/api/v1/imports", ["-H", "Content-Type: text/csv", "--data-binary", "a,b\n"], token: token)
        }
        #expect(second?.status == 429)
        #expect(second?.errorCode == "too_many")
    }

    @Test("HSTS on every answer when the public URL is https, errors included; none over plain HTTP")
    func strictTransportSecurity() throws {
        let https = try ServerProcess(["--public-url", "https://sleep.example.org", "--workers", "0"])
        for path in ["/healthz", "/sign-in", "/no-such-page", "/api/v1/imports"] {
            #expect(try https.curl(path).headers["strict-transport-security"] == "max-age=31536000", "\(path)")
        }
        let plain = try ServerProcess(["--workers", "0"], environment: https.environment)
        #expect(try plain.curl("/healthz").headers["strict-transport-security"] == nil)
    }
}
