import SleepReports

/// The API tokens page (issue 14, item 4): create a token with a scope (the whole token is
/// shown once, right after), revoke one, and the exact settings to enter in Health Auto
/// Export (docs/http-api.md, "Setting up the app").
public enum TokensView {
    /// A token just made: its whole text, shown this once.
    public struct CreatedToken: Sendable, Hashable {
        /// The whole token, `sl_<id>_<secret>`.
        public var token: String
        /// Its name.
        public var name: String
        /// Its scope.
        public var scope: TokenRow.Scope

        /// A token just made.
        public init(token: String, name: String, scope: TokenRow.Scope) {
            self.token = token
            self.name = name
            self.scope = scope
        }
    }

    /// The tokens page: `tokens` newest first, `created` when one was just made, and the
    /// Health Auto Export settings for the server at `publicURL` (`https://sleep.example.org`).
    public static func page(
        tokens: [TokenRow], created: CreatedToken? = nil, publicURL: String, csrfToken: String,
        notice: WebNotice? = nil
    ) -> WebPage {
        var body: HTML = "<h1>API tokens</h1>\n\(notice.html)"
        if let created {
            body += """
                <section class="card notice-success" aria-labelledby="new-token-heading">
                <h2 id="new-token-heading">Your new token “\(created.name)”</h2>
                <p role="status">Copy it now: it is shown only this once (only a hash of it is stored).</p>
                <div class="field"><label for="new-token">\(scopeName(created.scope)) token</label>
                <input type="text" id="new-token" class="token" value="\(created.token)" readonly \
                autocomplete="off" spellcheck="false"></div>
                <button type="button" class="secondary" data-copy="new-token" hidden>Copy token</button>
                </section>

                """
        }
        body += """
            <form id="token-form" class="card" method="post" action="\(WebPaths.tokens)">
            <h2>Create a token</h2>
            \(WebLayout.csrfInput(csrfToken))
            <div class="field"><label for="token-name">Name</label>
            <input type="text" id="token-name" name="name" maxlength="64" required placeholder="phone" \
            autocomplete="off"></div>
            <div class="field"><label for="token-scope">Scope</label>
            <select id="token-scope" name="scope" aria-describedby="token-scope-hint">\
            <option value="ingest" selected>Ingest: send sleep and see import status</option>\
            <option value="full">Full: also read your data, change settings and manage tokens</option></select>
            <p id="token-scope-hint" class="hint">A phone automation needs only an ingest token.</p></div>
            <div class="actions"><button type="submit">Create token</button></div>
            </form>

            """
        body += tokenList(tokens, csrfToken: csrfToken)
        body += healthAutoExport(publicURL: publicURL, token: created?.token)
        return WebPage(title: "Tokens", current: .tokens, body: body, scripts: [WebAssets.appScript])
    }

    static func scopeName(_ scope: TokenRow.Scope) -> String {
        switch scope {
        case .ingest: return "Ingest"
        case .full: return "Full"
        }
    }

    static func tokenList(_ tokens: [TokenRow], csrfToken: String) -> HTML {
        guard !tokens.isEmpty else { return "<p>You have no tokens yet.</p>\n" }
        let rows = tokens.map { token -> HTML in
            let state: HTML
            if let revoked = token.revokedAt {
                state = "Revoked \(ReportFormat.utcTime(revoked))"
            } else {
                state = """
                    <form class="inline-form" method="post" action="\(WebPaths.revokeToken(token.id))">\
                    \(WebLayout.csrfInput(csrfToken))<button type="submit" class="secondary" \
                    aria-label="Revoke token \(token.name)">Revoke</button></form>
                    """
            }
            let mark: HTML = token.revokedAt == nil ? "" : " class=\"revoked\""
            return """
                <tr\(mark)><th scope="row">\(token.name)</th>\
                <td><code>\(token.id)</code></td><td>\(scopeName(token.scope))</td>\
                <td>\(ReportFormat.utcTime(token.createdAt))</td><td>\(ReportFormat.utcTime(token.lastUsedAt))</td>\
                <td>\(state)</td></tr>
                """
        }
        return """
            <h2>Your tokens</h2>
            <div class="table-scroll"><table class="tokens">
            <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Scope</th>\
            <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody>
            </table></div>

            """
    }

    /// The Health Auto Export setup with the exact URL and header.
    static func healthAutoExport(publicURL: String, token: String?) -> HTML {
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        let url = base + WebPaths.healthAutoExportAPI
        let header = token.map { "Bearer \($0)" } ?? "Bearer <your ingest token>"
        return """
            <section class="card" aria-labelledby="hae-heading">
            <h2 id="hae-heading">Health Auto Export</h2>
            <p>The iPhone app Health Auto Export can send your new sleep here on a schedule. Create an ingest \
            token above, then in the app add an automation with these settings (names may read slightly \
            differently in your version):</p>
            <ol class="setup">
            <li><strong>Automation type</strong>: REST API</li>
            <li><strong>URL</strong>: <code class="copyable">\(url)</code></li>
            <li><strong>Headers</strong>: add one with the key <code>Authorization</code> and the value \
            <code class="copyable">\(header)</code></li>
            <li><strong>Export format</strong>: JSON</li>
            <li><strong>Data type</strong>: Health Metrics, with <strong>Sleep Analysis</strong> selected (other \
            metrics are ignored)</li>
            <li><strong>Summarize Data</strong>: <strong>off</strong>. With it on, the app sends one summary a \
            night without the sleep itself, and the server refuses it.</li>
            <li><strong>Date range</strong> and <strong>schedule</strong>: a range covering at least the time since \
            the previous run, such as the last day for a daily run; overlapping ranges are fine, nothing is \
            stored twice.</li>
            <li><strong>Batch Requests</strong> may be on.</li>
            </ol>
            <p>After the automation has run, its import shows on the <a href="\(WebPaths.imports)">Imports</a> page.</p>
            </section>

            """
    }
}
