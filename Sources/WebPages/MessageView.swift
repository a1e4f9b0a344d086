/// A page that only says something: not found, not allowed, try again later, or that an
/// action worked, with a link onwards.
public enum MessageView {
    /// A page titled `title` saying `message`, with a link to `linkPath` reading `linkText`.
    public static func page(
        title: String, message: String, linkText: String = "Back to the dashboard",
        linkPath: String = WebPaths.dashboard
    ) -> WebPage {
        let body: HTML = """
            <h1>\(title)</h1>
            <p>\(message)</p>
            <p><a href="\(linkPath)">\(linkText)</a></p>

            """
        return WebPage(title: title, current: nil, body: body)
    }
}
