import Foundation
public import SleepCore
import SleepReports

/// The settings page (issue 14, item 4): time zone, target and minimum sleep (saved
/// through `PATCH /api/v1/me` by `app.js`, so the summary is rebuilt at once, or posted to
/// `/settings` without JavaScript), the password change, where the person is signed in and
/// their API tokens (issue 20: sign out everywhere else, revoke all tokens), downloading
/// all their data (issue 22) and deleting the account.
public enum SettingsView {
    /// The settings page of `handle`, whose zone is `timeZone` and goals `goals`, with their
    /// valid web `sessions` and their `tokens`; the zone list is `zones` (IANA identifiers;
    /// by default Foundation's `TimeZone.knownTimeZoneIdentifiers`, sorted).
    public static func page(
        handle: String, timeZone: String, goals: SleepGoals, csrfToken: String,
        sessions: [SessionRow] = [], tokens: [TokenRow] = [], zones: [String] = SettingsView.knownZones,
        notice: WebNotice? = nil
    ) -> WebPage {
        var options: [HTML] = []
        if !zones.contains(timeZone) {
            options.append("<option value=\"\(timeZone)\" selected>\(timeZone)</option>")
        }
        for zone in zones {
            options.append(
                zone == timeZone
                    ? "<option value=\"\(zone)\" selected>\(zone)</option>" : "<option>\(zone)</option>")
        }
        let body: HTML = """
            <h1>Settings</h1>
            \(notice.html)<form id="settings-form" class="card" method="post" action="\(WebPaths.settings)" \
            data-api="\(WebPaths.meAPI)">
            <h2>Time zone and goals</h2>
            \(WebLayout.csrfInput(csrfToken))
            <div class="field"><label for="settings-zone">Time zone</label>
            <select id="settings-zone" name="time_zone" aria-describedby="settings-zone-hint">\(options)</select>
            <p id="settings-zone-hint" class="hint">Used for nights whose samples carry no zone of their own.</p></div>
            \(duration("target", legend: "Target sleep", seconds: goals.targetSeconds, hint: "What you aim for each night; debt is measured against it."))\
            \(duration("minimum", legend: "Minimum acceptable sleep", seconds: goals.minimumSeconds, hint: "Nights under it count as short in the week's stats and are marked in the charts."))\
            \(personalFields(goals))\
            <div class="actions"><button type="submit">Save settings</button></div>
            <p id="settings-status" role="status" aria-live="polite"></p>
            </form>
            <form id="password-form" class="card" method="post" action="\(WebPaths.password)">
            <h2>Password</h2>
            \(WebLayout.csrfInput(csrfToken))
            <input type="text" name="username" value="\(handle)" autocomplete="username" hidden \
            id="password-username"><label for="password-username" hidden>Handle</label>
            <div class="field"><label for="password-current">Current password</label>
            <input type="password" id="password-current" name="current_password" autocomplete="current-password" required></div>
            <div class="field"><label for="password-new">New password</label>
            <input type="password" id="password-new" name="new_password" autocomplete="new-password" required></div>
            <div class="field"><label for="password-repeat">New password again</label>
            <input type="password" id="password-repeat" name="new_password_repeat" autocomplete="new-password" required></div>
            <div class="field checkbox"><input type="checkbox" id="password-revoke-tokens" name="revoke_tokens" \
            value="on"><label for="password-revoke-tokens">Also revoke all my API tokens</label></div>
            <p class="hint">Changing it signs you out everywhere else.</p>
            <div class="actions"><button type="submit">Change password</button></div>
            </form>
            \(access(sessions: sessions, tokens: tokens, csrfToken: csrfToken))\
            <section id="export" class="card" aria-labelledby="export-heading">
            <h2 id="export-heading">Download all my data</h2>
            <p>One zip of everything stored for you: your sleep samples (CSV, in the form SleepLedger imports), \
            nights and naps (CSV), summaries (JSON) and imports (JSON).</p>
            <div class="actions"><a id="export-download" class="button secondary" href="\(WebPaths.exportAPI)" \
            download>Download all my data</a></div>
            </section>
            <form id="delete-form" class="card danger-zone" method="post" action="\(WebPaths.deleteAccount)">
            <h2>Delete my account</h2>
            \(WebLayout.csrfInput(csrfToken))
            <p>This deletes your account and everything in it: samples, imports, nights, summaries and tokens. It \
            cannot be undone.</p>
            <div class="field"><label for="delete-confirm">Type your handle, <strong>\(handle)</strong>, to confirm</label>
            <input type="text" id="delete-confirm" name="confirm_handle" autocomplete="off" autocapitalize="none" \
            spellcheck="false" required></div>
            <div class="actions"><button type="submit" class="danger">Delete my account</button></div>
            </form>

            """
        return WebPage(title: "Settings", current: .settings, body: body, scripts: [WebAssets.appScript])
    }

    /// Where the person is signed in, with "sign out everywhere else", and their API tokens,
    /// with "revoke all tokens".
    static func access(sessions: [SessionRow], tokens: [TokenRow], csrfToken: String) -> HTML {
        let rows = sessions.map { session -> HTML in
            let mark: HTML = session.isCurrent ? " <strong>(this session)</strong>" : ""
            return """
                <tr><td>\(ReportFormat.utcTime(session.createdAt))\(mark)</td>\
                <td>\(ReportFormat.utcTime(session.lastUsedAt))</td><td>\(session.address ?? "-")</td></tr>
                """
        }
        let others = sessions.contains { !$0.isCurrent }
        let validTokens = tokens.contains { $0.revokedAt == nil }
        return """
            <section id="sessions" class="card" aria-labelledby="sessions-heading">
            <h2 id="sessions-heading">Where you are signed in</h2>
            <div class="table-scroll"><table class="sessions">
            <thead><tr><th scope="col">Signed in</th><th scope="col">Last used</th>\
            <th scope="col">Address</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody>
            </table></div>
            <form id="end-sessions-form" method="post" action="\(WebPaths.endOtherSessions)">
            \(WebLayout.csrfInput(csrfToken))
            <div class="actions"><button type="submit" class="secondary"\(others ? "" : " disabled")>\
            Sign out everywhere else</button></div>
            </form>
            </section>
            <section id="access-tokens" class="card" aria-labelledby="access-tokens-heading">
            <h2 id="access-tokens-heading">API tokens</h2>
            <p>Create tokens and set up Health Auto Export on the <a href="\(WebPaths.tokens)">Tokens</a> page.</p>
            \(TokensView.tokenList(tokens, csrfToken: csrfToken))\
            <form id="revoke-tokens-form" method="post" action="\(WebPaths.revokeAllTokens)">
            \(WebLayout.csrfInput(csrfToken))
            <div class="actions"><button type="submit" class="secondary"\(validTokens ? "" : " disabled")>\
            Revoke all tokens</button></div>
            </form>
            </section>

            """
    }

    /// Every IANA zone Foundation knows, sorted.
    public static var knownZones: [String] { TimeZone.knownTimeZoneIdentifiers.sorted() }

    /// Work days (`work_day_1` ... `work_day_7`, ISO weekdays) and what debt is measured
    /// against (`target_mode`), issue 24.
    static func personalFields(_ goals: SleepGoals) -> HTML {
        var boxes: [HTML] = []
        for (index, name) in WebFormat.weekdayNames.enumerated() {
            let day = index + 1
            let checked: HTML = goals.workDays.isoWeekdays.contains(day) ? " checked" : ""
            boxes.append(
                "<div class=\"field checkbox\"><input type=\"checkbox\" id=\"settings-work-day-\(day)\" "
                    + "name=\"work_day_\(day)\" value=\"on\"\(checked)> "
                    + "<label for=\"settings-work-day-\(day)\">\(name)</label></div>")
        }
        let fixed: HTML = goals.target == .fixed ? " checked" : ""
        let estimated: HTML = goals.target == .estimatedNeed ? " checked" : ""
        return """
            <fieldset class="work-days" aria-describedby="settings-work-days-hint"><legend>Work days</legend>
            \(boxes)
            <p id="settings-work-days-hint" class="hint">The other days are free days: they decide social jet lag, \
            your free nights and your chronotype.</p>
            </fieldset>
            <fieldset class="target-mode" aria-describedby="settings-target-mode-hint"><legend>Measure debt against</legend>
            <div class="field checkbox"><input type="radio" id="settings-target-fixed" name="target_mode" value="fixed"\(fixed)> \
            <label for="settings-target-fixed">My target sleep</label></div>
            <div class="field checkbox"><input type="radio" id="settings-target-estimated" name="target_mode" \
            value="estimated_need"\(estimated)> <label for="settings-target-estimated">My estimated need</label></div>
            <p id="settings-target-mode-hint" class="hint">With your estimated need, each night is measured against \
            the need found from the nights before it.</p>
            </fieldset>

            """
    }

    /// A duration as hours and minutes fields (`target_hours`, `target_minutes`).
    static func duration(_ name: String, legend: String, seconds: Int64, hint: String) -> HTML {
        let minutes = (max(0, seconds) + 30) / 60
        return """
            <fieldset class="duration" aria-describedby="settings-\(name)-hint"><legend>\(legend)</legend>
            <div class="field"><label for="settings-\(name)-hours">Hours</label>\
            <input type="number" id="settings-\(name)-hours" name="\(name)_hours" min="0" max="23" step="1" \
            value="\(minutes / 60)" inputmode="numeric" required></div>
            <div class="field"><label for="settings-\(name)-minutes">Minutes</label>\
            <input type="number" id="settings-\(name)-minutes" name="\(name)_minutes" min="0" max="59" step="1" \
            value="\(minutes % 60)" inputmode="numeric" required></div>
            <p id="settings-\(name)-hint" class="hint">\(hint)</p>
            </fieldset>

            """
    }
}
