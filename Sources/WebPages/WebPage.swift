/// What a view renders: the page's title, the navigation item it belongs to, the body that
/// goes in `<main>` and the scripts it needs. ``WebLayout/render(_:signedIn:csrfToken:)``
/// wraps it in the document.
public struct WebPage: Sendable, Hashable {
    /// The page's own title (the document's title adds "SleepLedger").
    public var title: String
    /// The navigation item marked as current, if any.
    public var current: WebLayout.NavigationItem?
    /// The markup inside `<main>`.
    public var body: HTML
    /// The scripts the page loads (deferred, from `/static/`).
    public var scripts: [WebAssets.Asset]

    /// A page.
    public init(
        title: String, current: WebLayout.NavigationItem?, body: HTML, scripts: [WebAssets.Asset] = []
    ) {
        self.title = title
        self.current = current
        self.body = body
        self.scripts = scripts
    }
}
