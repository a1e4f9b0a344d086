import LedgerServices
import Synchronization

/// One request on its way through the middleware to its handler: the request, the route
/// it matched with its captures, the caller once authenticated, and the server's
/// services and settings.
public struct RequestContext {
    /// The request.
    public var request: HTTPRequest
    /// The route it matched.
    public let route: Route
    /// The values the template's `{name}` segments captured.
    public let captures: [String: String]
    /// Who the request speaks for; found by the authentication middleware for every route
    /// whose access is not ``Route/Access/open``.
    public var caller: Caller? { found.withLock { $0 } }
    /// The server's services and settings.
    let server: ServerEnvironment
    /// Where the caller's own data is read and written: the primary's pool, or the
    /// replica's for a route that reads from one once the replica has caught up with the
    /// caller (``ReplicaRouting``).
    var sessions: SessionPool
    /// The caller once found, shared by every copy of the context, so that the middleware
    /// outside the authentication (the error rendering) sees who the request spoke for.
    private let found = Shared(nil as Caller?)

    init(request: HTTPRequest, route: Route, captures: [String: String], server: ServerEnvironment) {
        self.request = request
        self.route = route
        self.captures = captures
        self.server = server
        sessions = server.pool
    }

    /// Records who the request speaks for.
    func authenticated(as caller: Caller) {
        found.withLock { $0 = caller }
    }

    /// The caller of a route that requires one.
    func requireCaller() throws(ServiceError) -> Caller {
        guard let caller else { throw ServiceError(.internalFailure, "a route needing a caller ran without one") }
        return caller
    }

    /// The signed-in person of a page route.
    func requireVisitor() throws(ServiceError) -> WebSessionService.Visitor {
        guard let visitor = caller?.visitor else {
            throw ServiceError(.internalFailure, "a page needing a session ran without one")
        }
        return visitor
    }

    /// The caller's own data (``AccountService``: each call one transaction as them).
    func account() throws(ServiceError) -> AccountService {
        AccountService(sessions: sessions, userID: try requireCaller().userID)
    }

    /// The query's parameters, refusing names outside `allowed`.
    func query(_ allowed: [String]) throws(QueryParameters.Refusal) -> QueryParameters {
        try QueryParameters(request, allowed: allowed)
    }
}

/// A value shared by reference, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}
