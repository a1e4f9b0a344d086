"""The browser tests' harness: headless Chromium (Debian's chromium and chromium-driver)
driven by Debian's python3-selenium. Run the scripts with /usr/bin/python3.

A script builds one Browser for its whole run (one Chromium session per test file),
names its steps, takes screenshots into the folder the Swift harness gives it, and checks
that the browser's console shows no Content-Security-Policy violation. Any failure raises;
the script then prints the step it was in and the traceback, and exits 1.
"""
import argparse
import json
import os
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def arguments(description, more=None):
    """The arguments every script takes: the server's address, the screenshot folder and
    the person to sign in as; `more(parser)` adds a script's own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--screenshots", required=True, help="folder for PNG screenshots")
    parser.add_argument("--handle", required=True)
    parser.add_argument("--password", required=True)
    if more is not None:
        more(parser)
    return parser.parse_args()


class Response:
    """An HTTP answer read with urllib, redirects not followed."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self):
        return self.body.decode("utf-8")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def http(url, cookie=None, method="GET", data=None, headers=None):
    """One request outside the browser (urllib), with `cookie` as the session cookie;
    a redirect or an error status is answered as it is, not followed or raised."""
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if cookie is not None:
        request.add_header("Cookie", f"sleepledger_session={cookie}")
    opener = urllib.request.build_opener(_NoRedirects)
    try:
        with opener.open(request, timeout=30) as answer:
            return Response(answer.status, answer.headers, answer.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, error.headers, error.read())


class Browser:
    """One headless Chromium session against the server at base_url."""

    def __init__(self, base_url, screenshots, width=1280, height=900):
        self.base_url = base_url.rstrip("/")
        self.screenshots = screenshots
        self.step_name = "starting Chromium"
        self.profile = tempfile.TemporaryDirectory(prefix="sleepledger-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in (
            "--headless=new",
            "--no-sandbox",  # the tests may run as root (CI), where Chromium's sandbox cannot start
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--metrics-recording-only",
            f"--user-data-dir={self.profile.name}",
            f"--window-size={width},{height}",
        ):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)
        self.console = []

    def step(self, name):
        """Names what the script does now (printed, and named again if it fails)."""
        self.step_name = name
        print(f"step: {name}", flush=True)

    def open(self, path):
        self.driver.get(self.base_url + path)

    @property
    def path(self):
        """The current page's path (and query)."""
        url = self.driver.current_url
        return url[len(self.base_url):] if url.startswith(self.base_url) else url

    def wait_for_path(self, path, seconds=15):
        try:
            WebDriverWait(self.driver, seconds).until(lambda driver: self.path == path)
        except TimeoutException:
            raise AssertionError(f"waited {seconds} s for {path}, the browser is at {self.path}") from None

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def screenshot(self, name, width=None, height=900, full_page=False):
        """Writes <screenshots>/<name>.png of the page, at `width` px when given; with
        `full_page`, the window is made as tall as the document first (and put back to
        `height` after)."""
        if width is not None:
            self.driver.set_window_size(width, height)
            time.sleep(0.2)
        if full_page:
            # The window is taller than its page area by the browser's own bars; twice, as
            # the page may lay out again at the new height (a scroll bar gone).
            for _ in range(2):
                window = self.driver.get_window_size()
                inner, tall = self.driver.execute_script(
                    "return [window.innerHeight, document.documentElement.scrollHeight]")
                self.driver.set_window_size(window["width"], window["height"] - inner + max(tall, 1))
                time.sleep(0.2)
        path = os.path.join(self.screenshots, name + ".png")
        self.driver.save_screenshot(path)
        print(f"screenshot: {path}", flush=True)
        if full_page:
            self.driver.set_window_size(self.driver.get_window_size()["width"], height)
        return path

    def sign_in(self, handle, password):
        """Signs in through the form and waits for the dashboard."""
        self.open("/sign-in")
        self.wait_for_path("/sign-in")
        self.find("#sign-in-handle").clear()
        self.find("#sign-in-handle").send_keys(handle)
        self.find("#sign-in-password").send_keys(password)
        self.submit("#sign-in-form button[type=submit]")
        self.wait_for_path("/")
        shown = self.find("form.sign-out .who strong").text
        assert shown == handle, f"signed in as {shown!r}, not {handle!r}"

    def submit(self, selector, seconds=30):
        """Clicks the button `selector` and waits until the page it leads to has loaded."""
        self.mark_page()
        self.find(selector).click()
        self.wait_for_new_page(seconds)

    def mark_page(self):
        """Marks the current document, so that ``wait_for_new_page`` knows it is gone."""
        self.driver.execute_script("window.sleepledgerOldPage = true")

    def wait_for_new_page(self, seconds=30):
        """Waits until the document marked by ``mark_page`` is replaced by a new one that has
        loaded (while the browser navigates, WebDriver's questions may fail: asked again)."""
        new_page = "return window.sleepledgerOldPage !== true && document.readyState === 'complete'"
        try:
            WebDriverWait(
                self.driver, seconds, poll_frequency=0.05, ignored_exceptions=[WebDriverException]
            ).until(lambda driver: driver.execute_script(new_page))
        except TimeoutException:
            raise AssertionError(f"waited {seconds} s for a new page, the browser is at {self.path}") from None

    def status(self):
        """The HTTP status of the current document (the Navigation Timing entry's)."""
        return self.driver.execute_script(
            "return performance.getEntriesByType('navigation')[0].responseStatus")

    def session_cookie(self):
        """The value of the session cookie, or None."""
        cookie = self.cookie("sleepledger_session")
        return cookie["value"] if cookie else None

    def get(self, path, **options):
        """A request outside the browser with the browser's session cookie (``http``)."""
        return http(self.base_url + path, cookie=self.session_cookie(), **options)

    def fetch(self, path, method="GET", csrf=True):
        """Requests `path` from the page itself (fetch, the session cookie, same origin; the
        page's CSRF token in X-CSRF-Token when `csrf`); returns [status, body text]. The
        console's line for an error status is read here (asked for, not a page's failure);
        a Content-Security-Policy violation among the console's lines still fails."""
        self.assert_no_csp_violations()
        answer = self.driver.execute_async_script(
            """
            const [path, method, csrf, done] = arguments;
            const meta = document.querySelector('meta[name=csrf-token]');
            const headers = csrf && meta ? {'X-CSRF-Token': meta.content} : {};
            fetch(path, {method: method, headers: headers})
                .then(r => r.text().then(t => done([r.status, t])), e => done([0, String(e)]));
            """, path, method, csrf)
        self.assert_no_csp_violations()
        return answer

    def assert_fits_width(self, width=375):
        """At `width` px wide, the page scrolls no wider than the window."""
        self.driver.set_window_size(width, 900)
        time.sleep(0.2)
        inner, client, scroll = self.driver.execute_script(
            "const root = document.documentElement; return [window.innerWidth, root.clientWidth, root.scrollWidth]")
        assert inner == width, f"the window is {inner} px wide inside, not {width}"
        # clientWidth is the width less a vertical scroll bar: wider content scrolls sideways.
        assert scroll <= client <= width, f"{self.path} is {scroll} px wide in {client} px at {width} px"

    def assert_fields_labelled(self):
        """Every field a person fills in (not hidden, not a button) has a label: a
        label[for=its id], a label around it, aria-label or aria-labelledby."""
        unlabelled = self.driver.execute_script(
            """
            const fields = [...document.querySelectorAll('input, select, textarea')]
                .filter(f => !['hidden', 'submit', 'button', 'reset', 'image'].includes(f.type));
            return fields.filter(f => !(
                (f.id && document.querySelector(`label[for="${CSS.escape(f.id)}"]`)) ||
                f.closest('label') || (f.getAttribute('aria-label') || '').trim() ||
                f.getAttribute('aria-labelledby'))).map(f => f.outerHTML);
            """)
        assert not unlabelled, f"fields without a label on {self.path}: {unlabelled}"

    def page_weight(self):
        """What the current page transferred: the document (its Navigation Timing
        transferSize, headers included) plus every stylesheet, script, icon and image it
        links, each fetched again outside the browser and counted with its body. Returns
        (total bytes, {url: bytes})."""
        document = self.driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0]; return [n.transferSize, n.encodedBodySize]")
        assert document[1] > 0, f"no size for the document: {document}"
        parts = {self.driver.current_url: max(document)}
        linked = self.driver.execute_script(
            """
            return [...document.querySelectorAll('link[href], script[src], img[src]')]
                .map(e => e.href || e.src).filter(u => u.startsWith(location.origin));
            """)
        for url in linked:
            answer = http(url, cookie=self.session_cookie())
            assert answer.status == 200, f"{url}: {answer.status}"
            parts[url] = len(answer.body) + sum(len(k) + len(v) + 4 for k, v in answer.headers.items())
        return sum(parts.values()), parts

    def read_console(self):
        """The console entries since the last read (kept in self.console as well)."""
        entries = self.driver.get_log("browser")
        self.console.extend(entries)
        return entries

    @staticmethod
    def csp_violations(entries):
        return [
            entry["message"]
            for entry in entries
            if "Content Security Policy" in entry["message"] or "Content-Security-Policy" in entry["message"]
        ]

    def assert_no_csp_violations(self):
        violations = self.csp_violations(self.read_console())
        assert not violations, "Content-Security-Policy violations in the console:\n" + "\n".join(violations)

    def assert_assets_loaded(self):
        """The page's stylesheet applies (it was served and not blocked) and, in the console
        since the last read, no resource failed to load (a 404 shows there) and no
        Content-Security-Policy violation."""
        sheets = self.driver.execute_script(
            "return [...document.styleSheets].map(s => [s.href, s.cssRules.length]);")
        assert sheets and all(count > 0 for _, count in sheets), f"stylesheets not loaded: {sheets}"
        entries = self.read_console()
        # The document itself may be an error on purpose (a refused form is a 403 page);
        # its status is the script's to check, its resources are checked here.
        document = self.driver.current_url
        failed = [
            entry["message"]
            for entry in entries
            if "Failed to load resource" in entry["message"] and entry["message"].split(" ")[0] != document
        ]
        assert not failed, "resources that failed to load:\n" + "\n".join(failed)
        violations = self.csp_violations(entries)
        assert not violations, "Content-Security-Policy violations in the console:\n" + "\n".join(violations)

    def assert_csp_enforced(self):
        """Proves both that the policy is enforced and that the console is read: an inline
        script added to the page is refused, and the refusal shows in the console."""
        self.read_console()
        self.driver.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.inlineRan = true';"
            " document.head.appendChild(s);")
        time.sleep(0.3)
        assert self.driver.execute_script("return window.inlineRan === true") is False, "an inline script ran"
        violations = self.csp_violations(self.read_console())
        assert violations, "an inline script was refused, but the console showed no CSP violation"

    def cookie(self, name):
        return self.driver.get_cookie(name)

    def quit(self):
        try:
            self.driver.quit()
        finally:
            self.profile.cleanup()


def report(name, value):
    """Prints `name: <value as JSON>` on a line of its own, for the Swift side to read."""
    print(f"{name}: {json.dumps(value, sort_keys=True)}", flush=True)


def run(script, description, more=None):
    """Runs script(browser, options) in one Chromium session; exits 1 with the failing
    step, the traceback and the console on any failure. `more(parser)` adds arguments."""
    options = arguments(description, more)
    os.makedirs(options.screenshots, exist_ok=True)
    browser = None
    try:
        browser = Browser(options.base_url, options.screenshots)
        script(browser, options)
        print("browser test passed", flush=True)
    except Exception:
        step = browser.step_name if browser else "starting Chromium"
        print(f"FAILED in step: {step}", flush=True)
        traceback.print_exc(file=sys.stdout)
        if browser is not None:
            try:
                browser.read_console()
                for entry in browser.console:
                    print(f"console: {entry.get('level')} {entry.get('message')}", flush=True)
                browser.screenshot("failure")
                print("page source:\n" + browser.driver.page_source[:4000], flush=True)
            except Exception as error:  # the browser itself may be gone
                print(f"(could not read the browser: {error})", flush=True)
        sys.exit(1)
    finally:
        if browser is not None:
            browser.quit()
