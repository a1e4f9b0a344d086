/// The metrics listener's one route, `GET /metrics`: the Prometheus text exposition of
/// what `families` returns at that moment. A function from request to plan like
/// ``ServerRoutes``, so it is testable without sockets; served by its own libmicrohttpd
/// daemon (``SleepLedgerServer``), never on the API's listener.
public struct MetricsRoutes: Sendable {
    /// The path Prometheus scrapes.
    public static let path = "/metrics"

    private let families: @Sendable () -> [MetricFamily]

    /// Routes answering with `families()`, called once per scrape.
    public init(families: @escaping @Sendable () -> [MetricFamily]) {
        self.families = families
    }

    /// `GET` (and `HEAD`) `/metrics`: 200 with the exposition; another method 405; any
    /// other path 404.
    public func plan(_ request: HTTPRequest) -> RequestPlan {
        guard request.path == Self.path else {
            return .respond(.error(404, code: "not_found", message: "metrics are at \(Self.path)"))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .respond(ServerRoutes.notAllowed("GET"))
        }
        return .respond(
            HTTPResponse(
                status: 200, headers: [.init("Content-Type", PrometheusText.contentType)],
                body: Array(PrometheusText.render(families()).utf8)))
    }
}
