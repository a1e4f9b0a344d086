/// Every answer of a route that needs a caller shows that person's data (or a form
/// token): `Cache-Control: no-store` keeps it out of every cache.
struct PersonalAnswers: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        guard context.route.access != .open else { return try next(context) }
        return try next(context).mapAnswer(Self.noStore)
    }

    /// `response` with `Cache-Control: no-store` (once).
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        guard response.header("Cache-Control") == nil else { return response }
        var response = response
        response.headers.append(.init("Cache-Control", "no-store"))
        return response
    }
}
