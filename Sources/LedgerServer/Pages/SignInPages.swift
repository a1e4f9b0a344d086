/// The HTML of the sign-in shell: a minimal layout, the sign-in form, a placeholder home
/// page that says who is signed in, and a message page. Pure functions of their values;
/// every value is escaped. The view layer (`WebPages`) replaces the layout and the home
/// page; this file moves there as it is.
enum SignInPages {
    /// A whole document: `title`, the session's CSRF token in
    /// `<meta name="csrf-token">` when signed in (scripts read it for `X-CSRF-Token`), and
    /// `body` (HTML, already escaped).
    static func document(title: String, csrfToken: String?, body: String) -> String {
        var head = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">

            """
        if let csrfToken { head += "<meta name=\"csrf-token\" content=\"\(escape(csrfToken))\">\n" }
        return head + "<title>\(escape(title)) - SleepLedger</title>\n</head>\n<body>\n" + body + "</body>\n</html>\n"
    }

    /// The sign-in form: `message` above it (an error, escaped), `handle` filled in again,
    /// and the sign-in form's token in the hidden `csrf_token` field.
    static func signIn(message: String?, handle: String, formToken: String) -> String {
        var body = "<main>\n<h1>Sign in to SleepLedger</h1>\n"
        if let message { body += "<p id=\"sign-in-error\" role=\"alert\">\(escape(message))</p>\n" }
        body += """
            <form method="post" action="/sign-in">
            <input type="hidden" name="csrf_token" value="\(escape(formToken))">
            <p><label for="handle">Handle</label>
            <input id="handle" name="handle" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(escape(handle))"></p>
            <p><label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required></p>
            <p><button type="submit">Sign in</button></p>
            </form>
            <p>No password yet? Your server's operator sets one with <code>sleepledger user passwd</code>.</p>
            </main>

            """
        return document(title: "Sign in", csrfToken: nil, body: body)
    }

    /// The placeholder home page: who is signed in, and the sign-out form.
    static func home(handle: String, csrfToken: String) -> String {
        let body = """
            <header>
            <p>Signed in as <strong id="signed-in-handle">\(escape(handle))</strong></p>
            \(signOutForm(csrfToken: csrfToken))
            </header>
            <main>
            <h1>Your sleep</h1>
            <p>The dashboard comes here.</p>
            </main>

            """
        return document(title: "Your sleep", csrfToken: csrfToken, body: body)
    }

    /// The sign-out form (a `POST` with the session's CSRF token).
    static func signOutForm(csrfToken: String) -> String {
        """
        <form method="post" action="/sign-out">
        <input type="hidden" name="csrf_token" value="\(escape(csrfToken))">
        <button type="submit" id="sign-out">Sign out</button>
        </form>
        """
    }

    /// A page with one message and a link onwards.
    static func message(title: String, text: String, link: (href: String, label: String)) -> String {
        let body = """
            <main>
            <h1>\(escape(title))</h1>
            <p id="message" role="alert">\(escape(text))</p>
            <p><a href="\(escape(link.href))">\(escape(link.label))</a></p>
            </main>

            """
        return document(title: title, csrfToken: nil, body: body)
    }

    /// `text` safe in HTML text and in quoted attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
