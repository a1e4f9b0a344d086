extension HTTPResponse {
    /// The `Content-Security-Policy` of every HTML page: only the server's own scripts,
    /// styles, images (and `data:` images), forms posting only to it, no framing, no
    /// `<base>`; no inline script or style.
    public static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    /// The headers every HTML response carries: the policy above, `nosniff`, and a
    /// referrer only to the server itself.
    public static let pageSecurityHeaders: [Header] = [
        Header("Content-Security-Policy", contentSecurityPolicy),
        Header("X-Content-Type-Options", "nosniff"),
        Header("Referrer-Policy", "same-origin"),
    ]

    /// An HTML page: `html` is the whole document (a view of `WebPages` in its `WebLayout`),
    /// sent as `text/html; charset=utf-8` with ``pageSecurityHeaders``, and with
    /// `Cache-Control: no-store` when it is `personal` (every page showing a person's data
    /// or a form token; only public assets are not).
    public static func page(_ html: String, status: Int = 200, personal: Bool = true, headers: [Header] = [])
        -> HTTPResponse
    {
        var all = [Header("Content-Type", "text/html; charset=utf-8")] + pageSecurityHeaders
        if personal { all.append(Header("Cache-Control", "no-store")) }
        return HTTPResponse(status: status, headers: all + headers, body: Array(html.utf8))
    }

    /// `303 See Other` to `location` (a path on this server), the answer to a form that
    /// worked: the browser then gets `location`, so reloading does not post again.
    public static func seeOther(_ location: String, headers: [Header] = []) -> HTTPResponse {
        HTTPResponse(
            status: 303,
            headers: [Header("Location", location), Header("Cache-Control", "no-store")] + pageSecurityHeaders
                + headers)
    }
}
