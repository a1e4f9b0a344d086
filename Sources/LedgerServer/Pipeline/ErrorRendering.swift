import LedgerServices
import WebPages

/// The one place failures become answers, for the API as JSON error documents and for the
/// pages as message pages, whether a step failed at the head or once the body arrived.
///
/// A use case's ``ServiceError`` decides the status by its kind (``HTTPResponse/init(_:)``);
/// a database that cannot be reached and a full session pool are 503 with `Retry-After`
/// and a generic message, their detail only in the server's log; anything else unexpected
/// is a 500 that says nothing of the internals (logged too). A refused query parameter or
/// body is a 400 naming it; on a page, a person's refused input is a 400 page saying why.
struct ErrorRendering: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        do {
            let plan = try next(context)
            // An answer already made has no later step to fail (the hot path allocates nothing here).
            if case .respond = plan { return plan }
            return plan.rescuing { error in Self.answer(to: error, context) }
        } catch {
            return .respond(Self.answer(to: error, context))
        }
    }

    /// The answer to `error` for the request of `context`, logged when it is the server's
    /// trouble rather than the caller's.
    static func answer(to error: any Error, _ context: RequestContext) -> HTTPResponse {
        if let failure = error as? ServiceError, [.unavailable, .internalFailure].contains(failure.kind) {
            context.server.log(
                "\(context.request.method) \(context.route.template): \(failure.kind.rawValue): \(failure.message)")
        } else if !(error is ServiceError || error is QueryParameters.Refusal || error is JSONBody.Refusal) {
            context.server.log(
                "\(context.request.method) \(context.route.template): unexpected error \(type(of: error))")
        }
        return context.route.isAPI ? apiAnswer(to: error) : PageRendering.failure(error, context)
    }

    /// The API's answer to `error`.
    static func apiAnswer(to error: any Error) -> HTTPResponse {
        switch error {
        case let refusal as QueryParameters.Refusal: return refusal.response
        case let refusal as JSONBody.Refusal: return refusal.response
        case let failure as ServiceError: return HTTPResponse(failure)
        default: return HTTPResponse(ServiceError(.internalFailure, "unexpected error"))
        }
    }
}
