import LedgerServices
import WebPages

/// Finds the caller of every route that needs one (``Route/Access``): an API route takes
/// a bearer token (401 without a valid one, 403 for an `ingest` token on a `full` route)
/// or, without a token, the session cookie; a page takes the session cookie and sends a
/// visitor without a valid one to the sign-in form (removing a stale cookie).
struct Authentication: Middleware {
    /// The refusal of an `ingest` token on a route that needs the `full` scope.
    static let fullScopeRequired = ServiceError(.forbidden, "this route needs a token with the full scope")

    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        let request = context.request
        let server = context.server
        switch context.route.access {
        case .open:
            break
        case .token(let scope):
            if let token = request.bearerToken {
                // With a replica the token is checked here, on the primary, never with the read.
                if server.replica == nil, context.route.checksTokenItself(request) { return try next(context) }
                let caller = try server.access.caller(token: token, now: server.now())
                guard scope == .ingest || caller.scope == .full else { throw Self.fullScopeRequired }
                context.authenticated(as: Caller(caller))
            } else if let cookie = request.cookies[WebCookie.session] {
                guard
                    let visitor = try server.access.visitor(
                        cookieValue: cookie, now: server.now(), address: request.clientAddress)
                else {
                    throw ServiceError(.unauthorized, "the session has ended; sign in again")
                }
                context.authenticated(as: Caller(visitor))
            } else {
                throw ServiceError(.unauthorized, "a valid API token is required")
            }
        case .signedIn:
            guard let cookie = request.cookies[WebCookie.session],
                let visitor = try server.access.visitor(
                    cookieValue: cookie, now: server.now(), address: request.clientAddress)
            else { return .respond(.seeOther(WebPaths.signIn, headers: server.clearingSession(request))) }
            context.authenticated(as: Caller(visitor))
        }
        return try next(context)
    }
}
