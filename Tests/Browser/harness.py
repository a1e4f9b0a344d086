"""The browser tests' harness: headless Chromium (Debian's chromium and chromium-driver)
driven by Debian's python3-selenium. Run the scripts with /usr/bin/python3.

A script builds one Browser for its whole run (one Chromium session per test file),
names its steps, takes screenshots into the folder the Swift harness gives it, and checks
that the browser's console shows no Content-Security-Policy violation. Any failure raises;
the script then prints the step it was in and the traceback, and exits 1.
"""
import argparse
import os
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def arguments(description):
    """The arguments every script takes: the server's address and the screenshot folder."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--screenshots", required=True, help="folder for PNG screenshots")
    parser.add_argument("--handle", required=True)
    parser.add_argument("--password", required=True)
    return parser.parse_args()


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

    def screenshot(self, name, width=None, height=900):
        """Writes <screenshots>/<name>.png of the whole page, at `width` px when given."""
        if width is not None:
            self.driver.set_window_size(width, height)
            time.sleep(0.2)
        path = os.path.join(self.screenshots, name + ".png")
        self.driver.save_screenshot(path)
        print(f"screenshot: {path}", flush=True)
        return path

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


def run(script, description):
    """Runs script(browser, options) in one Chromium session; exits 1 with the failing
    step, the traceback and the console on any failure."""
    options = arguments(description)
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
