import LedgerServices
import WebPages

/// Cross-site request forgery: a caller signed in by the session cookie must prove a
/// state-changing request comes from the server's own pages. An API request sends the
/// session's CSRF token in `X-CSRF-Token` (checked from the head: 403 `csrf`); a page's
/// form carries it in its `csrf_token` field (checked once the form, or an upload's
/// fields, arrived, before the handler's answer runs: the form-expired page, and an
/// upload's file is dropped). Compared in constant time; token callers are not concerned.
struct CSRFProtection: Middleware {
    /// Methods that change something.
    static let stateChangingMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// The answer to a state-changing API request made with the session cookie but without
    /// the session's CSRF token (or with a wrong one).
    static let refused = HTTPResponse.error(
        403, code: "csrf",
        message: "a request signed in by cookie must send the page's CSRF token in the X-CSRF-Token header")

    func handle(_ context: RequestContext, next: (RequestContext) throws -> RequestPlan) throws -> RequestPlan {
        guard context.caller?.visitor != nil, Self.stateChangingMethods.contains(context.request.method) else {
            return try next(context)
        }
        let cookie = context.request.cookies[WebCookie.session]
        func isValid(_ presented: String?) -> Bool {
            CookieSecret.isValid(presented, for: cookie, purpose: .session)
        }
        guard !context.route.isAPI else {
            guard isValid(context.request.header("x-csrf-token")) else { return .respond(Self.refused) }
            return try next(context)
        }
        switch try next(context) {
        case .form(let limit, let answer):
            return .form(limit: limit) { request in
                guard isValid(request.form[WebPaths.csrfField]) else { return PageRendering.formExpired }
                return try answer(request)
            }
        case .upload(let receiver, let finish):
            return .upload(receiver) { receiver in
                guard isValid(receiver.field(WebPaths.csrfField)) else {
                    receiver.abandon()
                    return PageRendering.formExpired
                }
                return try finish(receiver)
            }
        case let plan:
            // Answered from the head (a refusal) or reading no form: nothing is changed.
            return plan
        }
    }
}
