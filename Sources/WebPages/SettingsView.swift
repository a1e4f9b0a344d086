import Foundation
public import SleepCore
import SleepReports

/// The settings page (issue 14, item 4): time zone, target and minimum sleep (saved
/// through `PATCH /api/v1/me` by `app.js`, so the summary is rebuilt at once, or posted to
/// `/settings` without JavaScript), the password change, and deleting the account.
public enum SettingsView {
    /// The settings page of `handle`, whose zone is `timeZone` and goals `goals`; the zone
    /// list is `zones` (IANA identifiers; by default Foundation's
    /// `TimeZone.knownTimeZoneIdentifiers`, sorted).
    public static func page(
        handle: String, timeZone: String, goals: SleepGoals, csrfToken: String,
        zones: [String] = SettingsView.knownZones, notice: WebNotice? = nil
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
            <p class="hint">Changing it signs you out everywhere else.</p>
            <div class="actions"><button type="submit">Change password</button></div>
            </form>
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

    /// Every IANA zone Foundation knows, sorted.
    public static var knownZones: [String] { TimeZone.knownTimeZoneIdentifiers.sorted() }

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
