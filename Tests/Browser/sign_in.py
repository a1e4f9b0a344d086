#!/usr/bin/python3
"""Signs in through the form, checks the signed-in page and the console, signs out.

Started by Tests/LedgerCLITests/BrowserTests.swift against a real server with a user
whose password it set.
"""
from harness import run


def sign_in(browser, options):
    browser.step("the home page sends a visitor to the sign-in form")
    browser.open("/")
    browser.wait_for_path("/sign-in")
    assert browser.driver.title == "Sign in \u00b7 SleepLedger", browser.driver.title
    browser.assert_assets_loaded()
    for field in browser.find_all("form input:not([type=hidden])"):
        labels = browser.find_all(f"label[for='{field.get_attribute('id')}']")
        assert labels, f"the field {field.get_attribute('name')} has no label"
    browser.screenshot("sign-in-1280", width=1280)
    browser.screenshot("sign-in-375", width=375)
    browser.driver.set_window_size(1280, 900)
    browser.assert_no_csp_violations()

    browser.step("a wrong password shows the form again with the reason")
    browser.find("#sign-in-handle").send_keys(options.handle)
    browser.find("#sign-in-password").send_keys("not the password")
    browser.submit("#sign-in-form button[type=submit]")
    browser.wait_for_path("/sign-in")
    error = browser.find(".notice-error[role=alert]").text
    assert "wrong" in error, error
    browser.assert_assets_loaded()
    assert browser.cookie("sleepledger_session") is None

    browser.step("signing in with the right password opens the home page")
    handle = browser.find("#sign-in-handle")
    assert handle.get_attribute("value") == options.handle, "the handle is kept"
    browser.find("#sign-in-password").send_keys(options.password)
    browser.submit("#sign-in-form button[type=submit]")
    browser.wait_for_path("/")
    shown = browser.find("form.sign-out .who strong").text
    assert shown == options.handle, f"signed in as {shown!r}"
    session = browser.cookie("sleepledger_session")
    assert session is not None and session["httpOnly"] and session.get("sameSite") == "Strict", session
    token = browser.find("meta[name=csrf-token]").get_attribute("content")
    assert token and token == browser.find("form[action='/sign-out'] input[name=csrf_token]").get_attribute("value")
    browser.assert_assets_loaded()
    browser.screenshot("home-1280", width=1280)
    browser.screenshot("home-375", width=375)
    browser.driver.set_window_size(1280, 900)

    browser.step("no Content-Security-Policy violation in the console, and the policy is enforced")
    browser.assert_no_csp_violations()
    browser.assert_csp_enforced()

    browser.step("the page's own API request with the cookie and X-CSRF-Token works; without the token it is refused")
    statuses = browser.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const token = document.querySelector('meta[name=csrf-token]').content;
        const change = (headers) => fetch('/api/v1/me', {method: 'PATCH', headers: headers,
            body: JSON.stringify({target_seconds: 28800})}).then(r => r.status);
        Promise.all([fetch('/api/v1/me').then(r => r.status), change({'X-CSRF-Token': token}), change({})])
            .then(done, e => done(String(e)));
        """)
    assert statuses == [200, 200, 403], statuses

    browser.step("signing out ends the session")
    browser.submit("form.sign-out button[type=submit]")
    browser.wait_for_path("/sign-in")
    assert browser.cookie("sleepledger_session") is None
    browser.open("/")
    browser.wait_for_path("/sign-in")
    browser.assert_no_csp_violations()


if __name__ == "__main__":
    run(sign_in, "Sign in, check the signed-in page, sign out.")
