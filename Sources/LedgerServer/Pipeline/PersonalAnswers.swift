/// Every answer of a page that needs a signed-in person shows that person's data (or a
/// form token): `Cache-Control: no-store` keeps it out of every cache. The API's answers get
/// it for every route, matched or not, where ``ServerRoutes/route(_:)`` adds the API's
/// headers (``ServerRoutes/apiHeaders(_:)``), so it is not added twice here.
struct PersonalAnswers: Middleware {
    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        guard context.route.access != .open, !context.route.isAPI else { return try next(context) }
        let plan = try next(context)
        if case .respond(let response) = plan { return .respond(Self.noStore(response)) }
        return plan.mapAnswer(Self.noStore)
    }

    /// `response` with `Cache-Control: no-store` (once).
    static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        // The server writes its own headers in this spelling (a page's already says no-store).
        guard !response.headers.contains(where: { $0.name == "Cache-Control" }) else { return response }
        var response = response
        response.headers.append(.init("Cache-Control", "no-store"))
        return response
    }
}
