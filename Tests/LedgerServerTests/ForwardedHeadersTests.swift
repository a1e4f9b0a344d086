import Testing

@testable import LedgerServer

/// The client's address and origin from the trusted proxy's forwarded headers
/// (`MicroHTTPDServer.forwarded`, also fuzzed by `deploy/fuzz/run.sh http`).
@Suite("Forwarded headers")
struct ForwardedHeadersTests {
    @Test("believed from the trusted proxy only: the last X-Forwarded-For hop, http or https with a plain host")
    func forwarded() {
        let headers = [
            "x-forwarded-for": "203.0.113.9, 198.51.100.7 ", "x-forwarded-proto": "HTTPS, http",
            "host": "ledger.example:8443",
        ]
        let trusted = MicroHTTPDServer.forwarded(headers: headers, peer: "10.0.0.1", trustedProxy: "10.0.0.1")
        #expect(trusted.client == "198.51.100.7")
        #expect(trusted.origin == "https://ledger.example:8443")
        let other = MicroHTTPDServer.forwarded(headers: headers, peer: "10.0.0.2", trustedProxy: "10.0.0.1")
        #expect(other.client == "10.0.0.2" && other.origin == nil)
        let none = MicroHTTPDServer.forwarded(headers: headers, peer: "10.0.0.1", trustedProxy: nil)
        #expect(none.client == "10.0.0.1" && none.origin == nil)
        for (proto, host) in [("ftp", "ledger.example"), ("https", "evil.example/x"), ("https", ""), ("https", "a b")] {
            let refused = MicroHTTPDServer.forwarded(
                headers: ["x-forwarded-proto": proto, "host": host], peer: "10.0.0.1", trustedProxy: "10.0.0.1")
            #expect(refused.origin == nil && refused.client == "10.0.0.1")
        }
        // An empty header keeps nothing of it: the last hop of "" is none.
        #expect(
            MicroHTTPDServer.forwarded(headers: ["x-forwarded-for": ""], peer: "10.0.0.1", trustedProxy: "10.0.0.1")
                .client == "10.0.0.1")
    }

    @Test(
        "the forwarded client is believed only when it is an IP address (issue 20, F15)",
        arguments: [
            ("198.51.100.7", "198.51.100.7"), ("2001:db8::1", "2001:db8::1"), ("unknown", "10.0.0.1"),
            ("198.51.100.7\nforged", "10.0.0.1"), ("999.1.1.1", "10.0.0.1"), ("a.example", "10.0.0.1"),
        ])
    func forwardedClientIsAnAddress(hop: String, client: String) {
        let found = MicroHTTPDServer.forwarded(
            headers: ["x-forwarded-for": "203.0.113.9, " + hop], peer: "10.0.0.1", trustedProxy: "10.0.0.1")
        #expect(found.client == client)
    }

    @Test(
        "an access-log line keeps every request on its own line: control characters escaped (issue 20, F4)",
        arguments: [
            ("GET", "/api/v1/x\n127.0.0.1 \"GET /admin\" 200 0 0.1ms", "/api/v1/x\\n127.0.0.1"),
            ("GET\r\n", "/", "GET\\r\\n /"), ("GET", "/\u{1B}[2J", "/\\u{1B}[2J"),
        ])
    func accessLine(method: String, path: String, expected: String) {
        let line = MicroHTTPDServer.accessLine(
            client: "127.0.0.1", method: method, path: path, status: "404", bytes: 10, milliseconds: 1.25)
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{1B}"))
        #expect(line.contains(expected), "\(line)")
        #expect(line.hasSuffix(" 404 10 1.3ms") || line.hasSuffix(" 404 10 1.2ms"))
    }
}
