/// The paths the pages link and their forms post to, in one place, so the routes that
/// serve them and the markup agree. Forms that change something post with the hidden
/// field ``csrfField``; scripts send the token of the page's `csrf-token` meta tag in the
/// `X-CSRF-Token` header.
public enum WebPaths {
    /// The dashboard; `?horizon=` picks the horizon.
    public static let dashboard = "/"
    /// The upload page; its form posts the file here too (`multipart/form-data`).
    public static let upload = "/upload"
    /// The import history.
    public static let imports = "/imports"
    /// The nights table; `?from=&to=` picks the range.
    public static let nights = "/nights"
    /// The nights of a range as CSV; `?from=&to=`.
    public static let nightsCSV = "/nights.csv"
    /// The settings page; its settings form posts here without JavaScript.
    public static let settings = "/settings"
    /// Where the password form posts.
    public static let password = "/settings/password"
    /// Where the sign-out-everywhere-else form posts.
    public static let endOtherSessions = "/settings/sessions/end-others"
    /// Where the revoke-all-tokens form posts.
    public static let revokeAllTokens = "/settings/tokens/revoke-all"
    /// Where the delete-my-account form posts.
    public static let deleteAccount = "/settings/delete"
    /// The API tokens page; its create form posts here.
    public static let tokens = "/tokens"
    /// The sign-in page; its form posts here.
    public static let signIn = "/sign-in"
    /// Where the sign-out form posts.
    public static let signOut = "/sign-out"

    /// Where the revoke form of token `id` (16 hex digits) posts.
    public static func revokeToken(_ id: String) -> String { "/tokens/\(id)/revoke" }

    /// The dashboard of `horizon`.
    public static func dashboard(horizon: String) -> String { "/?horizon=\(horizon)" }

    /// The API route an upload goes to from the page's script.
    public static let importsAPI = "/api/v1/imports"
    /// The API route the settings form is saved through by the page's script (`PATCH`).
    public static let meAPI = "/api/v1/me"
    /// The zip of all the person's data (`GET`, the session cookie is enough).
    public static let exportAPI = "/api/v1/me/export"
    /// The Health Auto Export push route, after the public URL.
    public static let healthAutoExportAPI = "/api/v1/ingest/health-auto-export"

    /// The name of the hidden form field that carries the CSRF token.
    public static let csrfField = "csrf_token"
}
