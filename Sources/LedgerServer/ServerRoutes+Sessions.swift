import LedgerServices

extension ServerRoutes {
    /// Methods that change something: a request made with the session cookie must carry
    /// the session's CSRF token (`X-CSRF-Token`) to use them.
    static let stateChangingMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// The answer to a state-changing API request made with the session cookie but without
    /// the session's CSRF token (or with a wrong one).
    static let csrfRefused = HTTPResponse.error(
        403, code: "csrf",
        message: "a request signed in by cookie must send the page's CSRF token in the X-CSRF-Token header")

    /// Runs `body` for the person whose web session the request's cookie names, with the
    /// `full` scope: 401 without a valid session; 403 `csrf` for a POST, PUT, PATCH or
    /// DELETE without the session's CSRF token in `X-CSRF-Token` (compared in constant time).
    func authorizedBySession(_ request: HTTPRequest, _ body: (TokenService.Caller) throws -> HTTPResponse)
        -> HTTPResponse
    {
        do {
            guard let visitor = try visitor(request) else {
                return HTTPResponse(ServiceError(.unauthorized, "the session has ended; sign in again"))
            }
            if Self.stateChangingMethods.contains(request.method) {
                guard
                    CookieSecret.isValid(
                        request.header("x-csrf-token"), for: request.cookies[WebCookie.session], purpose: .session)
                else { return Self.csrfRefused }
            }
            return try body(visitor.caller)
        } catch {
            return Self.response(for: error)
        }
    }
}
