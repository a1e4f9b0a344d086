import Foundation
import Glibc
import LedgerServices
import Synchronization
import Testing

@testable import LedgerServer

/// The connection model's rules (issue 20, F1, F5, F7): the head deadline and the body
/// rate over a fake clock, per-address keys, the head checks, the watch on real sockets,
/// HSTS, and which requests count as anonymous.
@Suite("connections: deadlines, address keys, head checks, the watch")
struct ConnectionRulesTests {
    static let rules = ConnectionDeadlines(headSeconds: 20, minimumBodyBytesPerSecond: 1024, bodyWindowSeconds: 30)

    /// A head started at 0, checked at `now`.
    @Test(
        "a head not complete after the deadline is cut; the deadline counts from its start, not its last byte",
        arguments: [(10.0, false), (20.0, false), (20.5, true), (140.0, true)])
    func headDeadline(now: Double, isCut: Bool) {
        var phase = ConnectionDeadlines.Phase.head(since: 0)
        #expect((Self.rules.verdict(&phase, now: now) == .headTimeout) == isCut)
    }

    /// Bytes arriving at `bytesPerSecond`, checked every second: when the body is cut
    /// (`nil`: never within 200 s).
    @Test(
        "a body slower than the rate is cut after the grace and one window; at the rate or faster it never is",
        arguments: [
            (0.0, 60.0 as Double?), (1.0 / 20, 60), (512, 60), (1023, 60), (1024, nil), (4096, nil),
            (1_000_000, nil),
        ])
    func bodyRate(bytesPerSecond: Double, cutAt: Double?) {
        var phase = ConnectionDeadlines.Phase.body(.init(started: 0))
        var cut: Double?
        for second in 1...200 {
            if case .body(var body) = phase {
                body.receivedBytes = Int64(bytesPerSecond * Double(second))
                phase = .body(body)
            }
            if Self.rules.verdict(&phase, now: Double(second)) == .slowBody {
                cut = Double(second)
                break
            }
        }
        #expect(cut == cutAt)
    }

    @Test("a body that stalls after a fast start is cut once a window passes without enough bytes")
    func bodyThatStalls() {
        var phase = ConnectionDeadlines.Phase.body(.init(started: 0, receivedBytes: 10 << 20))
        #expect(Self.rules.verdict(&phase, now: 30) == nil)  // the grace ends: the window starts
        #expect(Self.rules.verdict(&phase, now: 59) == nil)
        #expect(Self.rules.verdict(&phase, now: 60) == .slowBody)
    }

    @Test("the server's own turn has no deadline")
    func serving() {
        var phase = ConnectionDeadlines.Phase.serving
        #expect(Self.rules.verdict(&phase, now: 1e9) == nil)
    }

    @Test(
        "connections count per IPv4 address, per IPv6 /64, an IPv4-mapped address as its IPv4",
        arguments: [
            ("203.0.113.9", "203.0.113.9"), ("2001:db8:1:2::5", "2001:db8:1:2::/64"),
            ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"), ("2001:db8:1:3::5", "2001:db8:1:3::/64"),
            ("::ffff:198.51.100.7", "198.51.100.7"), ("::1", "::/64"), ("unknown", "unknown"),
        ])
    func addressKeys(address: String, key: String) {
        #expect(ClientAddressKey.key(address) == key)
    }

    /// Heads as sent (name, value), and whether each is refused.
    static let heads: [([(String, String)], Bool)] = [
        ([("Host", "x"), ("Content-Length", "5")], false),
        ([("Host", "x"), ("Content-Length ", "5")], true),
        ([("Host", "x"), ("X\tY", "1")], true),
        ([("Host", "x"), ("X(Y)", "1")], true),
        ([("Host", "x"), ("Content-Length", "3"), ("content-length", "5")], true),
        ([("Host", "x"), ("Content-Length", "5"), ("Content-Length", "5")], true),
        ([("Host", "x"), ("Content-Length", "5"), ("Transfer-Encoding", "chunked")], true),
        ([("Host", "x"), ("Transfer-Encoding", "chunked"), ("X-Custom_Header.1~", "v")], false),
    ]

    @Test(
        "a head with whitespace before a colon, a bad name, two Content-Lengths or a length beside chunks is refused",
        arguments: heads)
    func headChecks(fields: [(String, String)], isRefused: Bool) {
        #expect((RequestHeadCheck.problem(fields.map { (name: $0.0, value: $0.1) }) != nil) == isRefused)
    }

    /// A connected pair of sockets: the server's end and the client's.
    static func socketPair() -> (server: Int32, client: Int32) {
        var pair: [Int32] = [0, 0]
        _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
        return (pair[0], pair[1])
    }

    /// Whether the peer of `client` shut its end: a read returns end-of-file at once.
    static func isShutDown(_ client: Int32) -> Bool {
        var byte: UInt8 = 0
        _ = fcntl(client, F_SETFL, O_NONBLOCK)
        return recv(client, &byte, 1, 0) == 0
    }

    @Test("the watch shuts down the socket of a connection past its deadline and only that one, and counts the cut")
    func watchCuts() {
        let cuts = Cuts()
        let watch = ConnectionWatch(deadlines: Self.rules, perAddressLimit: 8) { cuts.add($0) }
        let slow = Self.socketPair()
        let fresh = Self.socketPair()
        let serving = Self.socketPair()
        defer { for socket in [slow, fresh, serving].flatMap({ [$0.server, $0.client] }) { close(socket) } }
        _ = watch.opened(socket: slow.server, key: "a", now: 0)
        _ = watch.opened(socket: fresh.server, key: "b", now: 15)
        watch.opened(socket: serving.server, key: "c", now: 0).serve()
        #expect(watch.check(now: 25) == 1)
        #expect(Self.isShutDown(slow.client))
        #expect(!Self.isShutDown(fresh.client))
        #expect(!Self.isShutDown(serving.client))
        #expect(watch.check(now: 26) == 0)  // cut once
        #expect(cuts.all == [.headTimeout])
    }

    @Test("the watch admits at most the per-address limit for a key, again once one closes; uncounted peers always")
    func watchCountsPerAddress() {
        let watch = ConnectionWatch(deadlines: Self.rules, perAddressLimit: 2)
        let first = watch.opened(socket: -1, key: "2001:db8::/64")
        _ = watch.opened(socket: -1, key: "2001:db8::/64")
        #expect(!watch.admits("2001:db8::/64"))
        #expect(watch.admits("2001:db9::/64"))
        #expect(watch.admits(nil))
        watch.closed(first)
        #expect(watch.admits("2001:db8::/64"))
        #expect(watch.openCount == 1)
    }

    @Test(
        "HSTS is sent when people reach the server over HTTPS, with the configured max-age; never over plain HTTP",
        arguments: [
            ("", false, 31_536_000, nil as String?), ("http://sleep.example.org", false, 31_536_000, nil),
            ("https://sleep.example.org", false, 31_536_000, "max-age=31536000"), ("", true, 600, "max-age=600"),
            ("https://sleep.example.org", true, 0, nil),
        ])
    func strictTransportSecurity(publicURL: String, isTLS: Bool, maxAge: Int, expected: String?) {
        var configuration = ServerConfiguration(spoolFolder: "/tmp/spool")
        configuration.publicURL = publicURL
        if isTLS { (configuration.tlsCertificatePath, configuration.tlsKeyPath) = ("/c.pem", "/k.pem") }
        configuration.hstsMaxAgeSeconds = maxAge
        #expect(configuration.strictTransportSecurity == expected)
    }

    @Test(
        "only a request without a caller that holds the server past its head can be refused as anonymous",
        arguments: [
            ("POST", "/sign-in", false, true), ("PATCH", "/api/v1/me", false, false),
            ("PATCH", "/api/v1/me", true, false),
            ("GET", "/healthz", false, false), ("GET", "/api/v1/imports", false, false),
        ])
    func anonymousRequests(method: String, path: String, withToken: Bool, isCounted: Bool) throws {
        let fixture = try PipelineFixture.shared.get()
        var headers = ["content-type": "application/x-www-form-urlencoded", "content-length": "10"]
        if withToken { headers["authorization"] = "Bearer \(fixture.full)" }
        let routed = fixture.routes.route(HTTPRequest(method: method, path: path, headers: headers))
        #expect((routed.refusalWhenBusy != nil) == isCounted)
        if let refusal = routed.refusalWhenBusy {
            #expect(refusal.status == 503)
            #expect(refusal.headers.contains { $0.name == "Retry-After" })
        }
    }
}

/// Cuts the watch reported.
final class Cuts: Sendable {
    private let cuts = Mutex<[ConnectionDeadlines.Cut]>([])
    func add(_ cut: ConnectionDeadlines.Cut) { cuts.withLock { $0.append(cut) } }
    var all: [ConnectionDeadlines.Cut] { cuts.withLock { $0 } }
}
