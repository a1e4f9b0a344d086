/// The sign-in page: handle and password, posted to `/sign-in` with the CSRF token.
public enum SignInView {
    /// The sign-in form, with `handle` filled in again after a failed attempt and `notice`
    /// saying why it failed (a wrong password, or too many attempts: try again later).
    public static func page(csrfToken: String, handle: String = "", notice: WebNotice? = nil) -> WebPage {
        let body: HTML = """
            <h1>Sign in</h1>
            \(notice.html)<form id="sign-in-form" class="card narrow" method="post" action="\(WebPaths.signIn)">
            \(WebLayout.csrfInput(csrfToken))
            <div class="field"><label for="sign-in-handle">Handle</label>
            <input type="text" id="sign-in-handle" name="handle" value="\(handle)" autocomplete="username" \
            autocapitalize="none" spellcheck="false" required></div>
            <div class="field"><label for="sign-in-password">Password</label>
            <input type="password" id="sign-in-password" name="password" autocomplete="current-password" required></div>
            <div class="actions"><button type="submit">Sign in</button></div>
            </form>
            <p>No password yet? Your server's operator sets one with <code>sleepledger user passwd</code>.</p>

            """
        return WebPage(title: "Sign in", current: nil, body: body)
    }
}
