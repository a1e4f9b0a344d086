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
}
