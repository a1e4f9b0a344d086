/// How long a connection may take over the parts of a request that are the client's turn
/// (issue 20, F1): the whole request head within ``headSeconds`` (like nginx's
/// `client_header_timeout`; libmicrohttpd's own timeout restarts with every byte), and a
/// body at least ``minimumBodyBytesPerSecond`` averaged over each window of
/// ``bodyWindowSeconds`` once the first such window (the grace) has passed (like Apache's
/// `mod_reqtimeout` MinRate). Pure rules over a monotonic clock in seconds; the
/// ``ConnectionWatch`` applies them.
struct ConnectionDeadlines: Sendable, Hashable {
    /// Seconds from a connection's start (or its previous answer, on a kept-alive
    /// connection) until its request head must be complete.
    var headSeconds: Double
    /// The slowest body accepted, averaged over a window.
    var minimumBodyBytesPerSecond: Double
    /// The grace before the rate counts, and the window it is averaged over.
    var bodyWindowSeconds: Double

    /// Why a connection was cut.
    enum Cut: String, Sendable, Hashable, CaseIterable {
        /// Its request head was not complete in time.
        case headTimeout = "head_timeout"
        /// Its body arrived slower than the minimum rate.
        case slowBody = "slow_body"
    }

    /// A body on its way: when it started, the bytes so far, and the window being measured.
    struct Body: Sendable, Hashable {
        /// When the first call for the body came.
        var started: Double
        /// Body bytes received so far.
        var receivedBytes: Int64 = 0
        /// Where the current window started; `nil` during the grace.
        var window: Window?
    }

    /// The start of a window over which a body's rate is averaged.
    struct Window: Sendable, Hashable {
        /// When it started.
        var start: Double
        /// The body's bytes then.
        var bytes: Int64
    }

    /// Where a connection is.
    enum Phase: Sendable, Hashable {
        /// Waiting for a request head since the given time.
        case head(since: Double)
        /// Receiving a request's body.
        case body(Body)
        /// The server's turn: routing, answering, sending (no deadline of these rules).
        case serving
    }

    /// Whether a connection in `phase` is cut at `now`; advances a body's window when one
    /// has passed at a sufficient rate.
    func verdict(_ phase: inout Phase, now: Double) -> Cut? {
        switch phase {
        case .serving:
            return nil
        case .head(let since):
            return now - since > headSeconds ? .headTimeout : nil
        case .body(var body):
            guard now - body.started >= bodyWindowSeconds else { return nil }
            guard let window = body.window else {
                body.window = Window(start: now, bytes: body.receivedBytes)
                phase = .body(body)
                return nil
            }
            let elapsed = now - window.start
            guard elapsed >= bodyWindowSeconds else { return nil }
            let rate = Double(body.receivedBytes - window.bytes) / elapsed
            guard rate >= minimumBodyBytesPerSecond else { return .slowBody }
            body.window = Window(start: now, bytes: body.receivedBytes)
            phase = .body(body)
            return nil
        }
    }
}
