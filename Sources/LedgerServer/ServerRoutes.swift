public import LedgerServices
import WebPages

/// The server's routes: a table of ``Route``s (one file per resource in `API/` and
/// `Pages/`), matched once by a ``Router``, each request passed through the middleware
/// (``MiddlewareChain``) to its handler. Functions from request to plan, testable without
/// sockets; ``MicroHTTPDServer`` carries the plans out.
public final class ServerRoutes: Sendable {
    /// The server's settings.
    public let configuration: ServerConfiguration
    let server: ServerEnvironment
    private let router = Router(routes: ServerRoutes.table)

    /// Routes over `pool` (sessions of `database` as the server's role), with the clock
    /// `now`; `replica`, when given, takes the reads of the routes that read from one
    /// (``Route/readsFromReplica``); `onQueued` wakes the workers after an upload was
    /// queued; `isStopping` turns new work away with 503; `pause` waits before a slowed
    /// sign-in; `log` takes the detail of failures that are the server's own.
    public init(
        configuration: ServerConfiguration, database: LedgerDatabase, pool: SessionPool, replica: ReplicaReads? = nil,
        now: @escaping @Sendable () -> Int64, onQueued: @escaping @Sendable () -> Void = {},
        isStopping: @escaping @Sendable () -> Bool = { false }, pause: (@Sendable (Double) -> Void)? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.configuration = configuration
        server = ServerEnvironment(
            configuration: configuration, database: database, pool: pool, replica: replica, now: now,
            onQueued: onQueued,
            isStopping: isStopping, pause: pause, log: log)
    }

    /// The address people use, as printed in `Location` headers.
    public var publicURL: String {
        get { server.publicURL }
        set { server.publicURL = newValue }
    }

    /// Every route the server answers, in the order they are tried.
    public static let table: [Route] = apiTable + pageTable

    /// The API's routes: exactly the operations of the OpenAPI document (docs/openapi.json).
    public static let apiTable: [Route] =
        HealthAPI.routes + ImportsAPI.routes + AccountAPI.routes + ResultsAPI.routes + TokensAPI.routes
        + HealthAutoExportAPI.routes

    /// The HTML pages (docs/web-pages.md), not part of the OpenAPI document.
    public static let pageTable: [Route] =
        StaticAssets.routes + SignInPages.routes + DashboardPage.routes + UploadPage.routes + ImportsPage.routes
        + NightsPage.routes + SettingsPage.routes + TokensPage.routes

    /// Whether `path` belongs to the API (`/api/...` and `/healthz`), answered in JSON and
    /// described by the OpenAPI document; everything else is a page, answered in HTML.
    public static func isAPI(path: String) -> Bool {
        path == "/healthz" || path == "/api" || path.hasPrefix("/api/")
    }

    /// The plan for a request whose head has arrived.
    public func plan(_ request: HTTPRequest) -> RequestPlan { route(request).plan }

    /// What to do with a request whose head has arrived: the matched route's middleware
    /// and handler; 405 with `Allow` when only other methods match; 404 otherwise (JSON for
    /// the API, a page for the rest); the template of the route its path matched; and the
    /// answer it gets when it has no caller, holds the server past its head, and too many
    /// such requests are in progress.
    public func route(_ request: HTTPRequest) -> RoutedRequest {
        var (plan, template, caller) = matchedRoute(request)
        let isAPI = Self.isAPI(path: request.path)
        if isAPI {
            if case .respond(let response) = plan {
                plan = .respond(Self.apiHeaders(response))
            } else {
                plan = plan.mapAnswer(Self.apiHeaders)
            }
        }
        var routed = RoutedRequest(plan: plan, template: template)
        if caller == nil, !plan.isAnsweredFromHead {
            routed.refusalWhenBusy =
                isAPI ? Self.apiHeaders(Self.tooManyAnonymous) : PageRendering.busy(retryAfterSeconds: 5)
        }
        return routed
    }

    /// The answer to a request without an account past ``ServerConfiguration/maximumAnonymousRequests``.
    static let tooManyAnonymous = HTTPResponse.error(
        503, code: "busy", message: "too many requests without an account are in progress; try again shortly",
        headers: [.init("Retry-After", "5")])

    /// Every API answer, refusals and errors included (issue 20, F8): never cached
    /// (`Cache-Control: no-store` unless the answer says otherwise) and never sniffed as
    /// another type (`X-Content-Type-Options: nosniff`).
    static func apiHeaders(_ response: HTTPResponse) -> HTTPResponse {
        var response = PersonalAnswers.noStore(response)
        if !response.headers.contains(where: { $0.name == "X-Content-Type-Options" }) {
            response.headers.append(.init("X-Content-Type-Options", "nosniff"))
        }
        return response
    }

    private func matchedRoute(_ request: HTTPRequest) -> (plan: RequestPlan, template: String?, caller: Caller?) {
        let match = router.match(method: request.method, path: request.path)
        switch match {
        case .found(let route, let captures):
            let context = RequestContext(request: request, route: route, captures: captures, server: server)
            do {
                return (try MiddlewareChain.run(context), route.template, context.caller)
            } catch {
                // The error middleware answers every failure; this is its own safety net.
                return (.respond(ErrorRendering.answer(to: error, context)), route.template, context.caller)
            }
        case .methodNotAllowed(let allowed, let template):
            let methods = allowed.joined(separator: ", ")
            let response =
                Self.isAPI(path: request.path)
                ? Self.notAllowed(methods)
                : PageRendering.message(
                    title: "Not allowed", message: "This address does not take that kind of request.", status: 405,
                    headers: [.init("Allow", methods)])
            return (.respond(response), template, nil)
        case .notFound:
            let response =
                Self.isAPI(path: request.path)
                ? HTTPResponse.error(404, code: "not_found", message: "no such route") : PageRendering.notFound
            return (.respond(response), nil, nil)
        }
    }

    /// The API's 405.
    static func notAllowed(_ allowed: String) -> HTTPResponse {
        .error(405, code: "method_not_allowed", message: "allowed: \(allowed)", headers: [.init("Allow", allowed)])
    }

    /// The answer while the server stops.
    static let stopping = HTTPResponse.error(
        503, code: "stopping", message: "the server is stopping; try again shortly",
        headers: [.init("Retry-After", "5")])
}
