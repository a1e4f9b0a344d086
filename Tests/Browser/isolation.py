#!/usr/bin/python3
"""A second person in the same browser: they see nothing of the first person's data and
cannot reach it by URL (404), their forms posted without the CSRF token are refused (403)
and change nothing, and wrong passwords for the first person are slowed, then refused
(429).

Started by Tests/LedgerCLITests/BrowserTests.swift against a real server whose sign-in
limits are 3/5 (three failures go through at once, five refuse), with the first person
(`--other-handle`), one of their imports and one of their tokens.
"""
import re
import time

from harness import run

TOO_MANY = "Too many failed sign-ins"


def more_arguments(parser):
    parser.add_argument("--other-handle", required=True, help="the first person")
    parser.add_argument("--other-password", required=True)
    parser.add_argument("--other-import", required=True, help="an import id of the first person")
    parser.add_argument("--other-token", required=True, help="a token id of the first person")
    parser.add_argument("--from", dest="first", required=True, help="the first person's first wake day")
    parser.add_argument("--to", dest="last", required=True, help="the first person's last wake day")


def post_form(browser, action, fields):
    """Posts a form built in the page (as another site or a hand-made page would) and
    waits for the answer."""
    browser.mark_page()
    browser.driver.execute_script(
        """
        const [action, fields] = arguments;
        const form = document.createElement('form');
        form.method = 'post';
        form.action = action;
        for (const [name, value] of Object.entries(fields)) {
            const input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            input.value = value;
            form.appendChild(input);
        }
        document.body.appendChild(form);
        form.submit();
        """, action, fields)
    browser.wait_for_new_page()


def nothing_of_the_other(browser, options):
    browser.step("the second person's pages show none of the first person's data")
    browser.sign_in(options.handle, options.password)
    assert browser.find_all(".empty-state"), "the dashboard says there is nothing yet"
    assert not browser.find_all(".card.debt")
    browser.assert_assets_loaded()
    pages = ["/", "/imports", f"/nights?from={options.first}&to={options.last}", "/tokens", "/settings"]
    for path in pages:
        browser.open(path)
        assert browser.status() == 200, f"{path}: {browser.status()}"
        browser.assert_assets_loaded()
        text = browser.find("main").text
        assert options.other_handle.lower() not in text.lower(), f"{path} names {options.other_handle}"
        assert options.other_token not in text, f"{path} shows the token {options.other_token}"
    browser.open("/imports")
    assert "No imports yet" in browser.find("main").text
    browser.open(f"/nights?from={options.first}&to={options.last}")
    assert not browser.find_all("table.nights"), "no night is listed"
    csv = browser.get(f"/nights.csv?from={options.first}&to={options.last}")
    assert csv.status == 200 and len(csv.text.strip().splitlines()) == 1, f"{csv.status}: {csv.text[:300]}"


def no_reach_by_url(browser, options):
    browser.step("the first person's import, token and charts answer 404 to the second person")
    browser.open("/")
    imports = f"/api/v1/imports/{options.other_import}"
    assert browser.fetch(imports)[0] == 404, browser.fetch(imports)
    assert browser.fetch(imports, method="DELETE")[0] == 404
    listed = browser.fetch("/api/v1/imports")
    assert listed[0] == 200 and options.other_import not in listed[1], listed
    assert browser.fetch(f"/api/v1/tokens/{options.other_token}", method="DELETE")[0] == 404
    for chart in ("duration", "debt"):
        for horizon in ("weekly", "10y"):
            answer = browser.fetch(f"/api/v1/charts/{chart}.svg?horizon={horizon}")
            assert answer[0] == 404, f"{chart} {horizon}: {answer}"
    assert browser.fetch("/api/v1/summary")[0] == 404

    browser.step("revoking the first person's token from a page: 404")
    token = browser.find("meta[name=csrf-token]").get_attribute("content")
    post_form(browser, f"/tokens/{options.other_token}/revoke", {"csrf_token": token})
    assert browser.status() == 404, browser.status()
    browser.assert_assets_loaded()
    browser.open("/no/such/page")
    assert browser.status() == 404, browser.status()
    browser.assert_assets_loaded()


def csrf(browser, options):
    browser.step("the token form without its CSRF token is refused (403) and makes no token")
    browser.open("/tokens")
    browser.driver.execute_script("document.querySelector('#token-form input[name=csrf_token]').remove()")
    browser.find("#token-name").send_keys("laptop")
    browser.submit("#token-form button[type=submit]")
    assert browser.status() == 403, browser.status()
    assert "Nothing was changed" in browser.find("main").text, browser.find("main").text
    browser.assert_assets_loaded()
    browser.open("/tokens")
    assert "laptop" not in browser.find("main").text

    browser.step("with its token the same form makes a token, shown once")
    browser.find("#token-name").send_keys("phone")
    browser.submit("#token-form button[type=submit]")
    browser.wait_for_path("/tokens")
    made = browser.find("#new-token").get_attribute("value")
    assert re.fullmatch(r"sl_[0-9a-f]{16}_[A-Za-z0-9_-]+", made), made
    browser.assert_assets_loaded()
    browser.assert_fields_labelled()

    browser.step("deleting the account without the CSRF token is refused (403)")
    browser.open("/settings")
    browser.driver.execute_script("document.querySelector('#delete-form input[name=csrf_token]').remove()")
    browser.find("#delete-confirm").send_keys(options.handle)
    browser.submit("#delete-form button[type=submit]")
    assert browser.status() == 403, browser.status()
    assert "Nothing was changed" in browser.find("main").text, browser.find("main").text
    browser.assert_assets_loaded()
    browser.open("/")
    assert browser.path == "/" and browser.find("form.sign-out .who strong").text == options.handle


def throttled(browser, options):
    browser.step("the second person signs out")
    browser.submit("form.sign-out button[type=submit]")
    browser.wait_for_path("/sign-in")

    browser.step("five wrong passwords for the first person: the last two slowed")
    took = []
    for attempt in range(5):
        browser.find("#sign-in-handle").clear()
        browser.find("#sign-in-handle").send_keys(options.other_handle)
        browser.find("#sign-in-password").send_keys(f"wrong password {attempt}")
        started = time.monotonic()
        browser.submit("#sign-in-form button[type=submit]")
        took.append(time.monotonic() - started)
        assert browser.status() == 403, f"attempt {attempt + 1}: {browser.status()}"
        assert "wrong" in browser.find(".notice-error[role=alert]").text
    print(f"wrong passwords took {[round(t, 2) for t in took]} s", flush=True)
    # The server waits 1 s, then 2 s, on top of what an attempt takes (the fastest of the
    # first three).
    assert took[3] >= 1 and took[4] >= 2, took
    assert took[4] >= min(took[:3]) + 1.5, took

    browser.step("then refused at once, even with the right password (429)")
    browser.find("#sign-in-handle").clear()
    browser.find("#sign-in-handle").send_keys(options.other_handle)
    browser.find("#sign-in-password").send_keys(options.other_password)
    started = time.monotonic()
    browser.submit("#sign-in-form button[type=submit]")
    assert time.monotonic() - started < 3, "the refusal does not wait (a sixth attempt would wait 4 s)"
    assert browser.status() == 429, browser.status()
    notice = browser.find(".notice-error[role=alert]").text
    assert TOO_MANY in notice, notice
    assert browser.session_cookie() is None
    browser.assert_assets_loaded()

    browser.step("the second person may still sign in from the same address")
    browser.sign_in(options.handle, options.password)
    browser.assert_no_csp_violations()


def isolation(browser, options):
    nothing_of_the_other(browser, options)
    no_reach_by_url(browser, options)
    csrf(browser, options)
    throttled(browser, options)


if __name__ == "__main__":
    run(isolation, "A second person reaches nothing of the first; CSRF and sign-in throttling.", more_arguments)
