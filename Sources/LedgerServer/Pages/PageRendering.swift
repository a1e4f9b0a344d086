import LedgerServices
import WebPages

/// What every page handler shares: the layout around a view, the message pages, the
/// notices a `303` after a form names, a page's query, and the pages for failures (which
/// ``ErrorRendering`` sends).
enum PageRendering {
    /// A page of only a message (``MessageView``) for a visitor who may not be signed in,
    /// answered with `status`; its link goes to `linkPath` (the home page, which sends a
    /// visitor without a session on to the sign-in form).
    static func message(
        title: String, message: String, linkText: String = "Go to SleepLedger", linkPath: String = WebPaths.dashboard,
        status: Int, headers: [HTTPResponse.Header] = []
    ) -> HTTPResponse {
        let page = MessageView.page(title: title, message: message, linkText: linkText, linkPath: linkPath)
        return .page(WebLayout.render(page, signedIn: nil, csrfToken: ""), status: status, headers: headers)
    }

    /// The page for an address that is no page (and no API route).
    static let notFound = message(title: "Not found", message: "There is no page at this address.", status: 404)

    /// The page while too many requests without an account are in progress (503 with
    /// `Retry-After`).
    static func busy(retryAfterSeconds: Int) -> HTTPResponse {
        message(
            title: "Busy", message: "SleepLedger is busy right now. Nothing was changed. Try again in a moment.",
            status: 503, headers: [.init("Retry-After", String(retryAfterSeconds))])
    }

    /// The answer to a page's form posted without its CSRF token, or with a wrong one.
    static let formExpired = message(
        title: "Form expired",
        message: "This form could not be checked (it is from an older page, or from another site). "
            + "Nothing was changed. Go back, reload the page and try again.",
        status: 403)

    /// `page` for the signed-in `visitor`, in the layout with their handle and CSRF token.
    static func personal(
        _ page: WebPage, _ visitor: WebSessionService.Visitor, handle: String, status: Int = 200,
        headers: [HTTPResponse.Header] = []
    ) -> HTTPResponse {
        .page(WebLayout.render(page, signedIn: handle, csrfToken: visitor.csrfToken), status: status, headers: headers)
    }

    /// A page of `title` and `message` for the signed-in person of `context` (a refused
    /// query, a token that is not theirs), answered with `status`.
    static func personalMessage(_ context: RequestContext, title: String, message: String, status: Int) throws
        -> HTTPResponse
    {
        let visitor = try context.requireVisitor()
        let handle = try context.account().account().user.handle
        let page = MessageView.page(title: title, message: message, linkText: "Go to your dashboard", linkPath: "/")
        return personal(page, visitor, handle: handle, status: status)
    }

    /// The page for a failure: for a signed-in person's refused input (a query parameter, a
    /// value a service refused) a 400 page saying why; 503 when the database or the
    /// password hashing is busy or unreachable; 404 for something that is not there (or
    /// not the visitor's); 500 otherwise, saying nothing of the internals.
    static func failure(_ error: any Error, _ context: RequestContext) -> HTTPResponse {
        let failure = error as? ServiceError
        let refusal: String? =
            (error as? QueryParameters.Refusal)?.message
            ?? (failure?.kind == .invalidInput ? failure.map { sentence($0.message) } : nil)
        if let refusal, context.caller?.visitor != nil,
            let page = try? personalMessage(context, title: "Not understood", message: refusal, status: 400)
        {
            return page
        }
        switch failure?.kind {
        case .busy?, .unavailable?:
            return message(
                title: "Busy", message: "SleepLedger is busy right now. Try again in a minute.", linkText: "Try again",
                status: 503, headers: [.init("Retry-After", "60")])
        case .notFound?:
            return notFound
        default:
            return message(
                title: "Something went wrong", message: "An internal error occurred; the server's log has it.",
                status: 500)
        }
    }

    /// An API message (lower-case, no full stop) as a sentence.
    static func sentence(_ message: String) -> String {
        guard let first = message.first else { return message }
        let text = first.uppercased() + message.dropFirst()
        return text.hasSuffix(".") ? text : text + "."
    }

    /// The query of a page: the parameters it takes plus `done`, and the notice `done`
    /// names. Unknown names and values are refused (a 400 page) like the API's.
    static func query(_ context: RequestContext, taking allowed: [String] = []) throws(QueryParameters.Refusal) -> (
        QueryParameters, WebNotice?
    ) {
        let query = try context.query(allowed + ["done"])
        guard let done = context.request.query["done"] else { return (query, nil) }
        guard let notice = PageNotice(rawValue: done) else {
            throw QueryParameters.Refusal("done must be one of the server's own notices")
        }
        return (query, notice.notice)
    }

    /// A form route's plan: url-encoded or multipart (a 415 page otherwise), at most
    /// ``maximumFormBytes`` (413), fields decoded by libmicrohttpd into ``HTTPRequest/form``,
    /// then `answer` (after the CSRF middleware checked the form's token).
    static func form(_ context: RequestContext, _ answer: @escaping (HTTPRequest) throws -> HTTPResponse)
        -> RequestPlan
    {
        guard let media = context.request.mediaType,
            ["application/x-www-form-urlencoded", "multipart/form-data"].contains(media)
        else {
            return .respond(
                message(title: "Not a form", message: "This address takes a form sent by the page.", status: 415))
        }
        if let length = context.request.contentLength, length > Int64(maximumFormBytes) {
            return .respond(.error(413, code: "too_large", message: "the form is larger than this route accepts"))
        }
        return .form(limit: maximumFormBytes, answer)
    }

    /// The largest form a page route reads: 16 KiB.
    static let maximumFormBytes = 16 << 10
}

/// What a page says after a form changed something and sent the browser on to it
/// (`?done=` in the address, from a fixed list: the address never carries text).
enum PageNotice: String, CaseIterable {
    case importQueued = "import-queued"
    case importKnown = "import-known"
    case settingsSaved = "settings-saved"
    case settingsPending = "settings-pending"
    case passwordChanged = "password-changed"
    case passwordChangedTokensRevoked = "password-changed-tokens-revoked"
    case tokenRevoked = "token-revoked"
    case otherSessionsEnded = "sessions-ended"
    case tokensRevoked = "tokens-revoked"

    /// The notice shown.
    var notice: WebNotice {
        switch self {
        case .importQueued: WebNotice(.success, "Your export was uploaded and waits for its import below.")
        case .importKnown: WebNotice(.info, "You had uploaded exactly this file before; its import is below.")
        case .settingsSaved: WebNotice(.success, "Settings saved; your summaries follow them.")
        case .settingsPending: WebNotice(.success, "Settings saved; your summaries follow them within a few minutes.")
        case .passwordChanged: WebNotice(.success, "Password changed. Your other sessions were signed out.")
        case .passwordChangedTokensRevoked:
            WebNotice(.success, "Password changed. Your other sessions were signed out and your API tokens revoked.")
        case .tokenRevoked: WebNotice(.success, "Token revoked: it no longer works.")
        case .otherSessionsEnded: WebNotice(.success, "You are signed out everywhere else.")
        case .tokensRevoked: WebNotice(.success, "All your API tokens are revoked: none of them works any more.")
        }
    }

    /// The page's address with this notice.
    func on(_ path: String) -> String { path + "?done=" + rawValue }
}
