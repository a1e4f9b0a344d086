import LedgerServices
import LedgerStore
import WebPages

/// Signing in and out: the form (with its own sign-in cookie against login CSRF), the
/// check of handle and password under the throttle, the session cookie; signing out.
enum SignInPages {
    static let routes: [Route] = [
        Route("GET", WebPaths.signIn, access: .open) { context in .respond(try form(context)) },
        Route("POST", WebPaths.signIn, access: .open) { context in
            PageRendering.form(context) { request in try signIn(request, context.server) }
        },
        Route("POST", WebPaths.signOut, access: .signedIn) { context in
            let visitor = try context.requireVisitor()
            let server = context.server
            return PageRendering.form(context) { _ in
                try server.access.signOut(visitor)
                return .seeOther(
                    WebPaths.signIn,
                    headers: [WebCookie.clear(WebCookie.session, path: "/", secure: server.isSecureCookie)])
            }
        },
    ]

    /// `GET /sign-in`: the form, with its cookie (an existing sign-in cookie is kept, so
    /// forms in several tabs all work); `303` home when already signed in.
    static func form(_ context: RequestContext) throws -> HTTPResponse {
        let server = context.server
        if let cookie = context.request.cookies[WebCookie.session],
            try server.access.visitor(cookieValue: cookie, now: server.now()) != nil
        {
            return .seeOther(WebPaths.dashboard)
        }
        return try page(context.request, server, message: nil, handle: "", status: 200)
    }

    /// The sign-in form (``SignInView``) answered with `status`, `message` (an error notice)
    /// and `handle` filled in, and the sign-in cookie (re)set; a stale session cookie is
    /// removed. The form's token is also the page's `csrf-token` meta tag.
    static func page(
        _ request: HTTPRequest, _ server: ServerEnvironment, message: String?, handle: String, status: Int,
        headers: [HTTPResponse.Header] = []
    ) throws -> HTTPResponse {
        let existing = request.cookies[WebCookie.signIn].flatMap { CookieSecret.bytes(of: $0) != nil ? $0 : nil }
        let secret = try existing ?? CookieSecret.generate()
        let token = CookieSecret.formToken(for: secret, purpose: .signIn) ?? ""
        let page = SignInView.page(csrfToken: token, handle: handle, notice: message.map { WebNotice(.error, $0) })
        let cookie = WebCookie.set(
            WebCookie.signIn, secret, path: WebPaths.signIn, maxAge: WebCookie.signInSeconds,
            secure: server.isSecureCookie)
        return .page(
            WebLayout.render(page, signedIn: nil, csrfToken: token), status: status,
            headers: [cookie] + server.clearingSession(request) + headers)
    }

    /// `POST /sign-in`: checks the form's token, the throttle, then handle and password
    /// (the fields of docs/web-pages.md: `handle`, `password`, `csrf_token`). `303` home
    /// with the session cookie; `403` with the form again for a wrong handle or password or
    /// an expired form; `429` with `Retry-After` while refused.
    static func signIn(_ request: HTTPRequest, _ server: ServerEnvironment) throws -> HTTPResponse {
        let handle = request.form["handle"] ?? ""
        func again(_ message: String, _ status: Int, _ headers: [HTTPResponse.Header] = []) throws -> HTTPResponse {
            try page(request, server, message: message, handle: handle, status: status, headers: headers)
        }
        guard
            CookieSecret.isValid(
                request.form[WebPaths.csrfField], for: request.cookies[WebCookie.signIn], purpose: .signIn)
        else { return try again("The sign-in form had expired. Please sign in again.", 403) }
        let password = request.form["password"] ?? ""
        guard !handle.isEmpty, !password.isEmpty else { return try again("Enter your handle and your password.", 400) }
        let key = throttleKey(handle)
        let started = server.now()
        switch server.signInThrottle.begin(handle: key, address: request.clientAddress, now: started) {
        case .refuse(let retryAfter):
            return try again(
                "Too many failed sign-ins. Try again in \(minutes(retryAfter)).", 429,
                [.init("Retry-After", String(retryAfter))])
        case .proceed(let delay):
            if delay > 0 { server.pause(delay) }
        }
        let signedIn: WebSessionService.SignedIn
        do {
            signedIn = try server.access.signIn(
                handle: handle, password: password, now: started, address: request.clientAddress)
        } catch  where error.kind == .unauthorized {
            return try again("The handle or the password is wrong.", 403)
        } catch {
            server.signInThrottle.abandoned(handle: key, address: request.clientAddress)
            throw error
        }
        server.signInThrottle.succeeded(handle: key, address: request.clientAddress)
        return .seeOther(
            WebPaths.dashboard,
            headers: [
                WebCookie.set(
                    WebCookie.session, signedIn.cookieValue, path: "/", maxAge: signedIn.expiresAt - started,
                    secure: server.isSecureCookie),
                WebCookie.clear(WebCookie.signIn, path: WebPaths.signIn, secure: server.isSecureCookie),
            ])
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
