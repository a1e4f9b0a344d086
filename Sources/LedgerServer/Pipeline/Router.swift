/// Matches a request against the route table once: the route with its captured values,
/// or why none answers (the methods the path takes, or nothing at all).
public struct Router: Sendable {
    /// The outcome of matching one request.
    public enum Match {
        /// The first route whose template and method match, with the template's captures.
        case found(Route, captures: [String: String])
        /// Routes match the path but not the method: these methods would (for `Allow`),
        /// and the first such route's template names the request in logs and metrics.
        case methodNotAllowed(allowed: [String], template: String)
        /// No route matches the path.
        case notFound

        /// The template naming the request in logs and metrics; `nil` when none matched.
        public var template: String? {
            switch self {
            case .found(let route, _): return route.template
            case .methodNotAllowed(_, let template): return template
            case .notFound: return nil
            }
        }
    }

    /// The routes, in the order they are tried.
    public let routes: [Route]

    /// A router over `routes`.
    public init(routes: [Route]) {
        self.routes = routes
    }

    /// Matches `method` and `path`.
    public func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/")
        var allowed: [String] = []
        var template: String?
        for route in routes {
            guard let captured = route.captures(segments) else { continue }
            if route.answers(method) { return .found(route, captures: captured) }
            allowed.append(route.method)
            template = template ?? route.template
        }
        guard let template else { return .notFound }
        return .methodNotAllowed(allowed: allowed, template: template)
    }
}
