/// The document around every page: head (viewport, CSRF token, stylesheet, icon,
/// scripts), a skip link, the navigation with sign-out, `<main>` and a footer.
///
/// Everything it writes obeys the server's Content-Security-Policy
/// (`default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'`): no
/// inline script, no `style` attribute, no inline event handler; scripts and the
/// stylesheet come from `/static/` (``WebAssets``).
public enum WebLayout {
    /// An entry of the navigation.
    public enum NavigationItem: String, Sendable, Hashable, CaseIterable {
        /// `/`.
        case dashboard
        /// `/upload`.
        case upload
        /// `/imports`.
        case imports
        /// `/nights`.
        case nights
        /// `/settings`.
        case settings
        /// `/tokens`.
        case tokens

        /// What the link says.
        public var label: String {
            switch self {
            case .dashboard: return "Dashboard"
            case .upload: return "Upload"
            case .imports: return "Imports"
            case .nights: return "Nights"
            case .settings: return "Settings"
            case .tokens: return "Tokens"
            }
        }

        /// Where it goes.
        public var path: String {
            switch self {
            case .dashboard: return WebPaths.dashboard
            case .upload: return WebPaths.upload
            case .imports: return WebPaths.imports
            case .nights: return WebPaths.nights
            case .settings: return WebPaths.settings
            case .tokens: return WebPaths.tokens
            }
        }
    }

    /// The whole document of a page titled `title` with `body` inside `<main>`.
    ///
    /// - Parameters:
    ///   - signedIn: the signed-in person's handle; with it the navigation and a sign-out
    ///     form are shown, without it neither (the sign-in page).
    ///   - csrfToken: the session's CSRF token, in `<meta name="csrf-token">` for scripts and
    ///     in the sign-out form's hidden `csrf_token` field.
    ///   - current: the navigation item marked `aria-current="page"`.
    ///   - scripts: scripts to load, deferred.
    public static func page(
        title: String, signedIn handle: String?, csrfToken: String, current: NavigationItem?, body: HTML,
        scripts: [WebAssets.Asset] = []
    ) -> String {
        var document: HTML = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="csrf-token" content="\(csrfToken)">
            <title>\(title) · SleepLedger</title>
            <link rel="stylesheet" href="\(WebAssets.stylesheet.path)">
            <link rel="icon" type="image/svg+xml" href="\(WebAssets.icon.path)">

            """
        for script in scripts {
            document += "<script src=\"\(script.path)\" defer></script>\n"
        }
        document += """
            </head>
            <body>
            <a class="skip-link" href="#main">Skip to main content</a>
            <header class="site-header">
            <a class="brand" href="\(WebPaths.dashboard)">SleepLedger</a>

            """
        if let handle {
            let links = NavigationItem.allCases.map { item -> HTML in
                let currentAttribute: HTML = item == current ? " aria-current=\"page\"" : ""
                return "<li><a href=\"\(item.path)\"\(currentAttribute)>\(item.label)</a></li>"
            }
            document += """
                <nav class="site-nav" aria-label="Main"><ul>\(links)</ul></nav>
                <form class="sign-out" method="post" action="\(WebPaths.signOut)">\(csrfInput(csrfToken))\
                <span class="who">Signed in as <strong>\(handle)</strong></span> \
                <button type="submit">Sign out</button></form>

                """
        }
        document += """
            </header>
            <main id="main" tabindex="-1">
            \(body)</main>
            <footer class="site-footer"><p>SleepLedger: sleep debt from Apple Health. \
            Not medical advice.</p></footer>
            </body>
            </html>

            """
        return document.rendered
    }

    /// ``page(title:signedIn:csrfToken:current:body:scripts:)`` of a view's ``WebPage``.
    public static func render(_ page: WebPage, signedIn handle: String?, csrfToken: String) -> String {
        self.page(
            title: page.title, signedIn: handle, csrfToken: csrfToken, current: page.current, body: page.body,
            scripts: page.scripts)
    }

    /// The hidden form field that carries the CSRF token.
    static func csrfInput(_ token: String) -> HTML {
        "<input type=\"hidden\" name=\"\(WebPaths.csrfField)\" value=\"\(token)\">"
    }
}
