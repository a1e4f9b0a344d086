import LedgerServices

/// A step every request of a route passes before (and, through the plan it returns,
/// after) its handler: it may answer itself, change the context, or change the answer.
protocol Middleware: Sendable {
    /// Handles `context`, calling `next` for the rest of the chain (or not).
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan
}

/// The server's middleware, outermost first: personal answers kept out of caches, errors
/// rendered for their audience, a read that lost the database tried once more, new work
/// turned away while the server stops, the caller authenticated, CSRF checked for callers
/// signed in by cookie, and, only when there is a replica, a person's reads sent there.
enum MiddlewareChain {
    /// The chain every route passes.
    static let standard: [any Middleware] = [
        PersonalAnswers(), ErrorRendering(), ReadRetry(), StopGate(), Authentication(), CSRFProtection(),
    ]

    /// The chain with a replica (`SLEEPLEDGER_READ_DATABASE_URL`): the standard one, then
    /// ``ReplicaRouting``. Without one the requests pass one step fewer.
    static let withReplica: [any Middleware] = standard + [ReplicaRouting()]

    /// `context` through the chain its server uses, then its route's handler.
    static func run(_ context: RequestContext) throws -> RequestPlan {
        try run(context, through: context.server.replica == nil ? standard[...] : withReplica[...])
    }

    /// `context` through `chain`, then its route's handler.
    static func run(_ context: RequestContext, through chain: ArraySlice<any Middleware>) throws
        -> RequestPlan
    {
        guard let first = chain.first else { return try context.route.handler(context) }
        return try first.handle(context) { try run($0, through: chain.dropFirst()) }
    }
}

/// While the server stops, a route that takes new work (an upload) is answered 503
/// `stopping` from its head, before its credentials are looked at.
struct StopGate: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        guard context.route.isNewWork, context.server.isStopping() else { return try next(context) }
        return .respond(ServerRoutes.stopping)
    }
}

/// A `GET` or `HEAD` (a read: idempotent) whose database was lost (a failover: the pool
/// has dropped the sessions to the old server) runs once more from its authentication on,
/// on a session connected again (``LedgerServices/SessionPool``); a second loss is
/// answered 503 with `Retry-After` by the error rendering. Other methods are not retried.
struct ReadRetry: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        do {
            return try next(context)
        } catch
            where (context.request.method == "GET" || context.request.method == "HEAD")
            && SessionPool.isLost(error)
        {
            try context.server.pool.connectAgain(after: error)
            return try next(context)
        }
    }
}

/// With a replica (`SLEEPLEDGER_READ_DATABASE_URL`, ``MiddlewareChain/withReplica``): a route that reads from one
/// (``Route/readsFromReplica``) reads there once the replica has replayed what its caller
/// last saw on the primary, waiting at most 200 ms, else on the primary
/// (``LedgerServices/ReplicaReads/isCaughtUp(userID:)``); after any other request of a
/// caller, the primary's WAL position is recorded as theirs. Without a replica, nothing.
struct ReplicaRouting: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        guard let replica = context.server.replica, let userID = context.caller?.userID else {
            return try next(context)
        }
        if context.route.readsFromReplica {
            guard replica.isCaughtUp(userID: userID) else { return try next(context) }
            var onReplica = context
            onReplica.sessions = replica.sessions
            return try next(onReplica)
        }
        let primary = context.server.pool
        return try next(context).mapAnswer { response in
            replica.recordPrimaryPosition(userID: userID, primary: primary)
            return response
        }
    }
}
