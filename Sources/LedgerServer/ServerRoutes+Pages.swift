import Foundation
import LedgerServices
import LedgerStore
import WebPages

extension ServerRoutes {
    /// The HTML pages (server-rendered; not part of the OpenAPI document, which describes
    /// the API): sign-in and sign-out, the static files the pages link, and a person's own
    /// pages (``personalPageRoutes``). Every
    /// page is rendered by a view of `WebPages` in ``WebLayout`` (docs/web-pages.md), sent
    /// through ``HTTPResponse/page(_:status:personal:headers:)`` with the security headers,
    /// and reads a person's data through the same services and row-level security as the API.
    static let pageRoutes: [Route] = sessionPageRoutes + personalPageRoutes

    /// Sign-in, sign-out and the static files.
    static let sessionPageRoutes: [Route] = [
        Route("GET", "/static/{name}") { _, request, _ in .respond(ServerRoutes.staticAsset(atPath: request.path)) },
        Route("GET", WebPaths.signIn) { routes, request, _ in .respond(routes.signInForm(request)) },
        Route("POST", WebPaths.signIn) { routes, request, _ in
            routes.readingForm(request) { request in routes.signIn(request) }
        },
        Route("POST", WebPaths.signOut) { routes, request, _ in
            routes.readingForm(request) { request in routes.signOut(request) }
        },
    ]

    /// The template of the page route whose path matches `path`, whatever its method; `nil`
    /// when it is no page (an API route, or nothing).
    public static func pageTemplate(matching path: String) -> String? {
        let segments = path.split(separator: "/")
        return pageRoutes.first { $0.captures(segments) != nil }?.template
    }

    /// The largest form a page route reads: 16 KiB.
    static let maximumFormBytes = 16 << 10

    /// A route that reads a form: url-encoded or multipart (415 otherwise), at most
    /// ``maximumFormBytes`` (413), fields decoded by libmicrohttpd into ``HTTPRequest/form``.
    func readingForm(_ request: HTTPRequest, _ answer: @escaping (HTTPRequest) -> HTTPResponse) -> Plan {
        guard let media = request.mediaType,
            ["application/x-www-form-urlencoded", "multipart/form-data"].contains(media)
        else {
            return .respond(
                Self.messagePage(
                    title: "Not a form", message: "This address takes a form sent by the page.", status: 415))
        }
        if let length = request.contentLength, length > Int64(Self.maximumFormBytes) {
            return .respond(.error(413, code: "too_large", message: "the form is larger than this route accepts"))
        }
        return .form(limit: Self.maximumFormBytes, answer)
    }

    // MARK: Sessions

    /// The visitor the request's session cookie speaks for; `nil` without a valid one.
    func visitor(_ request: HTTPRequest) throws -> WebSessionService.Visitor? {
        guard let cookie = request.cookies[WebCookie.session] else { return nil }
        do {
            return try pool.withSession { session in
                try WebSessionService(session: session, hashing: passwordHashing, policy: configuration.sessionPolicy)
                    .visitor(cookieValue: cookie, now: now())
            }
        } catch let error as ServiceError where error.kind == .unauthorized {
            return nil
        }
    }

    /// Whether cookies get `Secure`.
    var isSecureCookie: Bool { configuration.isPublicHTTPS }

    /// Removes a session cookie that no longer names a session.
    func clearingSession(_ request: HTTPRequest) -> [HTTPResponse.Header] {
        request.cookies[WebCookie.session] == nil
            ? [] : [WebCookie.clear(WebCookie.session, path: "/", secure: isSecureCookie)]
    }

    // MARK: Pages

    /// A page of only a message (``MessageView``) for a visitor who may not be signed in,
    /// answered with `status`; its link goes to `linkPath` (the home page, which sends a
    /// visitor without a session on to the sign-in form).
    static func messagePage(
        title: String, message: String, linkText: String = "Go to SleepLedger", linkPath: String = WebPaths.dashboard,
        status: Int, headers: [HTTPResponse.Header] = []
    ) -> HTTPResponse {
        let page = MessageView.page(title: title, message: message, linkText: linkText, linkPath: linkPath)
        return .page(WebLayout.render(page, signedIn: nil, csrfToken: ""), status: status, headers: headers)
    }

    /// `GET /static/<name>.<hash>.<ext>`: a file of ``WebAssets`` by its hashed path, with
    /// its content type and cached for a year (``WebAssets/cacheControl``: a changed file
    /// gets a new name). An unknown name, or a known one with another hash, is a 404 page.
    static func staticAsset(atPath path: String) -> HTTPResponse {
        guard let asset = WebAssets.asset(atPath: path) else {
            return messagePage(title: "Not found", message: "There is no such file.", status: 404)
        }
        return HTTPResponse(
            status: 200,
            headers: [
                HTTPResponse.Header("Content-Type", asset.contentType),
                HTTPResponse.Header("Cache-Control", WebAssets.cacheControl),
            ] + HTTPResponse.pageSecurityHeaders,
            body: asset.bytes)
    }

    /// A page for the signed-in person: `body` with the visitor, whose data it reads
    /// through the services as that person (``AccountService``: row-level security).
    /// Without a valid session, `303` to the sign-in form (a stale cookie removed). For a
    /// form (`checkingFormToken`: every `POST`), the hidden `csrf_token` must be the
    /// session's, else ``csrfRefusedPage`` and `body` does not run. A failure `body` throws
    /// is a 503 or 500 page (``pageFailure(_:)``).
    func signedIn(
        _ request: HTTPRequest, checkingFormToken: Bool = false,
        _ body: (WebSessionService.Visitor) throws -> HTTPResponse
    ) -> HTTPResponse {
        do {
            guard let visitor = try visitor(request) else {
                return .seeOther(WebPaths.signIn, headers: clearingSession(request))
            }
            if checkingFormToken {
                guard
                    CookieSecret.isValid(
                        request.form[WebPaths.csrfField], for: request.cookies[WebCookie.session], purpose: .session)
                else { return csrfRefusedPage }
            }
            return try body(visitor)
        } catch {
            return pageFailure(error)
        }
    }

    /// `GET /sign-in`: the form, with its cookie (an existing sign-in cookie is kept, so
    /// forms in several tabs all work); `303` home when already signed in.
    func signInForm(_ request: HTTPRequest) -> HTTPResponse {
        do {
            if try visitor(request) != nil { return .seeOther(WebPaths.dashboard) }
            return try signInPage(request, message: nil, handle: "", status: 200)
        } catch {
            return pageFailure(error)
        }
    }

    /// The sign-in form (``SignInView``) answered with `status`, `message` (an error notice)
    /// and `handle` filled in, and the sign-in cookie (re)set; a stale session cookie is
    /// removed. The form's token is also the page's `csrf-token` meta tag.
    func signInPage(
        _ request: HTTPRequest, message: String?, handle: String, status: Int, headers: [HTTPResponse.Header] = []
    )
        throws -> HTTPResponse
    {
        let existing = request.cookies[WebCookie.signIn].flatMap { CookieSecret.bytes(of: $0) != nil ? $0 : nil }
        let secret = try existing ?? CookieSecret.generate()
        let token = CookieSecret.formToken(for: secret, purpose: .signIn) ?? ""
        let page = SignInView.page(csrfToken: token, handle: handle, notice: message.map { WebNotice(.error, $0) })
        return .page(
            WebLayout.render(page, signedIn: nil, csrfToken: token), status: status,
            headers: [
                WebCookie.set(
                    WebCookie.signIn, secret, path: WebPaths.signIn, maxAge: WebCookie.signInSeconds,
                    secure: isSecureCookie)
            ] + clearingSession(request) + headers)
    }

    /// `POST /sign-in`: checks the form's token, the throttle, then handle and password
    /// (the fields of docs/web-pages.md: `handle`, `password`, `csrf_token`). `303` home
    /// with the session cookie; `403` with the form again for a wrong handle or password or
    /// an expired form; `429` with `Retry-After` while refused.
    func signIn(_ request: HTTPRequest) -> HTTPResponse {
        let handle = request.form["handle"] ?? ""
        do {
            guard
                CookieSecret.isValid(
                    request.form[WebPaths.csrfField], for: request.cookies[WebCookie.signIn], purpose: .signIn)
            else {
                return try signInPage(
                    request, message: "The sign-in form had expired. Please sign in again.", handle: handle,
                    status: 403)
            }
            let password = request.form["password"] ?? ""
            guard !handle.isEmpty, !password.isEmpty else {
                return try signInPage(
                    request, message: "Enter your handle and your password.", handle: handle, status: 400)
            }
            let key = Self.throttleKey(handle)
            let started = now()
            switch signInThrottle.begin(handle: key, address: request.clientAddress, now: started) {
            case .refuse(let retryAfter):
                return try signInPage(
                    request,
                    message: "Too many failed sign-ins. Try again in \(Self.minutes(retryAfter)).",
                    handle: handle, status: 429, headers: [.init("Retry-After", String(retryAfter))])
            case .proceed(let delay):
                if delay > 0 { pause(delay) }
            }
            let signedIn: WebSessionService.SignedIn
            do {
                signedIn = try pool.withSession { session in
                    try WebSessionService(
                        session: session, hashing: passwordHashing, policy: configuration.sessionPolicy
                    ).signIn(handle: handle, password: password, now: started)
                }
            } catch let error as ServiceError where error.kind == .unauthorized {
                return try signInPage(
                    request, message: "The handle or the password is wrong.", handle: handle, status: 403)
            } catch {
                signInThrottle.abandoned(handle: key, address: request.clientAddress)
                throw error
            }
            signInThrottle.succeeded(handle: key, address: request.clientAddress)
            return .seeOther(
                WebPaths.dashboard,
                headers: [
                    WebCookie.set(
                        WebCookie.session, signedIn.cookieValue, path: "/", maxAge: signedIn.expiresAt - started,
                        secure: isSecureCookie),
                    WebCookie.clear(WebCookie.signIn, path: WebPaths.signIn, secure: isSecureCookie),
                ])
        } catch {
            return pageFailure(error)
        }
    }

    /// `POST /sign-out`: with the session's CSRF token, ends the session; `303` to the
    /// sign-in form either way once the session is gone, `403` for a missing or wrong token.
    func signOut(_ request: HTTPRequest) -> HTTPResponse {
        signedIn(request, checkingFormToken: true) { visitor in
            try pool.withSession { session in
                try WebSessionService(session: session, hashing: passwordHashing, policy: configuration.sessionPolicy)
                    .signOut(visitor)
            }
            return .seeOther(
                WebPaths.signIn, headers: [WebCookie.clear(WebCookie.session, path: "/", secure: isSecureCookie)])
        }
    }

    /// The answer to a page's form posted without its CSRF token, or with a wrong one.
    var csrfRefusedPage: HTTPResponse {
        Self.messagePage(
            title: "Form expired",
            message: "This form could not be checked (it is from an older page, or from another site). "
                + "Nothing was changed. Go back, reload the page and try again.",
            status: 403)
    }

    /// The page for an address that is no page (and no API route).
    static let pageNotFound = messagePage(
        title: "Not found", message: "There is no page at this address.", status: 404)

    /// A page for a failure: 503 when the database or the password hashing is busy or
    /// unreachable, 404 for something that is not there (or not the visitor's), 500 otherwise (the message says nothing of the internals).
    func pageFailure(_ error: any Error) -> HTTPResponse {
        let failure = error as? ServiceError
        switch failure?.kind {
        case .busy?, .unavailable?:
            return Self.messagePage(
                title: "Busy", message: "SleepLedger is busy right now. Try again in a minute.", linkText: "Try again",
                status: 503, headers: [.init("Retry-After", "60")])
        case .notFound?:
            return Self.pageNotFound
        default:
            return Self.messagePage(
                title: "Something went wrong", message: "An internal error occurred; the server's log has it.",
                status: 500)
        }
    }

    /// The key a handle's failures count under: its caseless key (``UserHandle``), so
    /// `Anna` and `anna` share one; the text itself (bounded) when it is no handle.
    static func throttleKey(_ handle: String) -> String {
        let bounded = String(decoding: handle.utf8.prefix(4 * UserService.maximumHandleBytes), as: UTF8.self)
        return (try? UserHandle.key(bounded)) ?? bounded
    }

    /// `n minutes` (at least 1) for a wait in seconds.
    static func minutes(_ seconds: Int64) -> String {
        let minutes = max(1, (seconds + 59) / 60)
        return minutes == 1 ? "a minute" : "\(minutes) minutes"
    }
}
