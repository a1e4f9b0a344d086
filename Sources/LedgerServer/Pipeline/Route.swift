public import LedgerStore

/// One route: a method, a path template whose `{name}` segments capture a value, who may
/// use it, and the handler that parses the request, calls one service and renders.
public struct Route: Sendable {
    /// Who may use a route; the authentication middleware enforces it before the handler.
    public enum Access: Sendable, Hashable {
        /// Anyone: no credential is looked at.
        case open
        /// An API caller: a bearer token of at least this scope (`full` routes refuse an
        /// `ingest` token with 403), or a signed-in person's session cookie (which speaks
        /// with the `full` scope and must send its CSRF token with a state-changing method).
        case token(TokenStore.Scope)
        /// A signed-in person (the session cookie); others are sent to the sign-in form.
        /// A `POST` must carry the session's CSRF token in its form.
        case signedIn
    }

    /// The HTTP method; a `GET` route also answers `HEAD`.
    public let method: String
    /// The path, such as `/api/v1/imports/{id}`: the route's name in logs and metrics.
    public let template: String
    /// Who may use it.
    public let access: Access
    /// Whether the route belongs to the API (answered in JSON) rather than the pages.
    public let isAPI: Bool
    /// Whether the route takes new work that a stopping server turns away (uploads): 503
    /// from the head, before anything else is looked at.
    public let isNewWork: Bool
    /// Whether the handler checks a presented bearer token itself, in the same round trip
    /// as its read, for this request (the stored summary's hot path); the middleware then
    /// leaves the token to it.
    let checksTokenItself: @Sendable (HTTPRequest) -> Bool
    /// Whether the route only reads a person's results (summary, nights, debt, charts, the
    /// dashboard and the nights pages), which may come from a replica
    /// (``ReplicaRouting``); its caller is still found on the primary.
    let readsFromReplica: Bool
    let handler: @Sendable (RequestContext) throws -> RequestPlan
    /// The template's segments, split once (every request is matched against them).
    let pattern: [Substring]

    init(
        _ method: String, _ template: String, access: Access, isNewWork: Bool = false,
        readsFromReplica: Bool = false, checksTokenItself: @escaping @Sendable (HTTPRequest) -> Bool = { _ in false },
        _ handler: @escaping @Sendable (RequestContext) throws -> RequestPlan
    ) {
        self.method = method
        self.template = template
        self.access = access
        self.isAPI = ServerRoutes.isAPI(path: template)
        self.isNewWork = isNewWork
        self.checksTokenItself = checksTokenItself
        self.readsFromReplica = readsFromReplica
        self.handler = handler
        pattern = template.split(separator: "/")
    }

    /// The captured values when `segments` match the template; `nil` otherwise.
    func captures(_ segments: [Substring]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                values[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return values
    }

    /// Whether the route answers `method` (`HEAD` too for a `GET` route).
    func answers(_ method: String) -> Bool { self.method == method || (self.method == "GET" && method == "HEAD") }
}
