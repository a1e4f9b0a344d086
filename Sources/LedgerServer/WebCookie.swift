/// The cookies of the web pages, and their `Set-Cookie` headers.
///
/// Both are `HttpOnly` (no script reads them), `SameSite=Strict` (no other site's page
/// makes the browser send them), and `Secure` when the public URL is https.
enum WebCookie {
    /// The session cookie: the session id (``LedgerServices/CookieSecret``), `Path=/`,
    /// `Max-Age` up to the session's end.
    static let session = "sleepledger_session"
    /// The sign-in form's cookie, before any session: its secret gives the form's token.
    /// `Path=/sign-in`, an hour.
    static let signIn = "sleepledger_sign_in"
    /// How long a sign-in form stays usable: an hour.
    static let signInSeconds: Int64 = 3600

    /// `Set-Cookie` for `name=value` on `path` for `maxAge` seconds.
    static func set(_ name: String, _ value: String, path: String, maxAge: Int64, secure: Bool) -> HTTPResponse.Header {
        HTTPResponse.Header(
            "Set-Cookie",
            "\(name)=\(value); Path=\(path); Max-Age=\(max(0, maxAge)); HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : ""))
    }

    /// `Set-Cookie` that removes cookie `name` of `path`.
    static func clear(_ name: String, path: String, secure: Bool) -> HTTPResponse.Header {
        set(name, "", path: path, maxAge: 0, secure: secure)
    }
}
