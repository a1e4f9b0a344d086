#!/usr/bin/python3
"""One person's web app, start to end: sign in, upload an export through the upload page
(the progress bar reaches 100%, the import is followed until done), the dashboard of every
horizon (its figures printed for the Swift side to compare with `sleepledger-admin
summary`, the charts differ from horizon to horizon, under 100 KB), the nights CSV of a
range, the settings page's "Download all my data" (the zip holds one sample a line for
every sample the import stored), every page's quality (no CSP violation, no resource
failing, fits 375 px, labelled fields), screenshots, and sign-out.

Started by Tests/LedgerCLITests/BrowserTests.swift against a real server with a user whose
password it set, and an export it generated.
"""
import csv
import io
import os
import re
import time
import zipfile

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

from harness import http, report, run

HORIZONS = ["daily", "weekly", "monthly", "yearly", "5y", "10y"]
PAGES = ["/", "/upload", "/imports", "/nights", "/settings", "/tokens"]
NIGHTS_HEADER = [
    "wake_day", "time_zone", "bedtime_local", "onset_local", "wake_local", "bedtime", "onset", "wake",
    "asleep_seconds", "time_in_bed_seconds", "awake_seconds", "wake_ups", "latency_seconds", "deep_seconds",
    "rem_seconds", "core_seconds", "unspecified_seconds", "efficiency", "has_stage_data", "source",
    "fragment_count", "set_aside_sources",
]
MOST_BYTES = 100 * 1024


def more_arguments(parser):
    parser.add_argument("--export", required=True, help="the export file to upload")
    parser.add_argument("--from", dest="first", required=True, help="first wake day of the nights CSV")
    parser.add_argument("--to", dest="last", required=True, help="last wake day of the nights CSV")


def text_or_none(browser, selector):
    """The text of the first element matching `selector`, or None."""
    found = browser.find_all(selector)
    return found[0].text if found else None


def dashboard_figures(browser):
    """What the dashboard shows of the debt, the score and last night, as written."""
    lede = browser.find(".page-head .lede").text
    as_of = re.search(r"as of \w+ (\d{4}-\d{2}-\d{2})", lede)
    woke = re.search(r"Woke \w+ (\d{4}-\d{2}-\d{2})", text_or_none(browser, ".card.last-night") or "")
    bed = browser.find_all(".card.last-night time")
    return {
        "as_of": as_of.group(1) if as_of else None,
        "debt": browser.find(".card.debt .figure .big").text,
        "severity": browser.find(".card.debt .figure .badge").text,
        "score": browser.find(".card.score .figure .big").text,
        "grade": browser.find(".card.score .figure .badge.grade").text,
        "last_night": text_or_none(browser, ".card.last-night .figure .big"),
        "last_night_wake_day": woke.group(1) if woke else None,
        "last_night_bedtime": bed[0].text if bed else None,
        "last_night_wake": bed[1].text if len(bed) > 1 else None,
    }


def charts(browser):
    """The two inline SVG charts of the dashboard: (duration, debt)."""
    figures = browser.find_all("section.charts figure svg")
    assert len(figures) == 2, f"{len(figures)} charts on {browser.path}"
    return tuple(figure.get_attribute("outerHTML") for figure in figures)


def wait_for_summary(browser, seconds=60):
    """Reloads the dashboard until the rollup's summary shows (the debt card) and nothing
    is said to be waiting for the rollup."""
    deadline = time.monotonic() + seconds
    while True:
        waiting = "waiting to be summarised" in browser.find("main").text
        if browser.find_all(".card.debt") and not waiting:
            return
        assert time.monotonic() < deadline, f"no summary after {seconds} s: {browser.find('main').text[:300]}"
        time.sleep(0.5)
        browser.open("/")


def upload(browser, options):
    browser.step("the upload page: screenshots, then the export through its file input")
    browser.open("/upload")
    assert browser.driver.title == "Upload \u00b7 SleepLedger", browser.driver.title
    browser.assert_assets_loaded()
    browser.screenshot("upload-1280", width=1280, full_page=True)
    browser.screenshot("upload-375", width=375, full_page=True)
    browser.driver.set_window_size(1280, 900)
    # Every value the bar and the status take, as they change, kept in sessionStorage:
    # once done, the page opens the dashboard by itself, and the record outlives it.
    browser.driver.execute_script(
        """
        const bar = document.getElementById('upload-progress');
        const status = document.getElementById('upload-status');
        const record = {progress: [], states: []};
        const save = () => {
            record.value = bar.value;
            record.max = bar.max;
            record.text = status.textContent;
            sessionStorage.setItem('upload-record', JSON.stringify(record));
        };
        new MutationObserver(() => { record.progress.push(bar.value); save(); })
            .observe(bar, {attributes: true, childList: true, characterData: true, subtree: true});
        new MutationObserver(() => { record.states.push(status.getAttribute('data-state')); save(); })
            .observe(status, {attributes: true, attributeFilter: ['data-state']});
        """)
    browser.find("#upload-file").send_keys(os.path.abspath(options.export))
    browser.find("#upload-submit").click()

    browser.step("the progress bar reaches 100%, the import is followed until done, the dashboard opens")
    ended = """
        const status = document.getElementById('upload-status');
        return location.pathname === '/' ||
            (status !== null && ['failed', 'cancelled'].includes(status.getAttribute('data-state')));
        """
    WebDriverWait(browser.driver, 120, poll_frequency=0.1, ignored_exceptions=[WebDriverException]).until(
        lambda driver: driver.execute_script(ended))
    record = browser.driver.execute_script("return JSON.parse(sessionStorage.getItem('upload-record'))")
    print(f"the upload page's bar and status: {record}", flush=True)
    assert record["states"][-1] == "done", f"the import ended {record['states']}: {record['text']}"
    assert record["value"] == record["max"] == 100, f"the bar ended at {record['value']} of {record['max']}"
    assert max(record["progress"]) == 100, f"the bar went up to {max(record['progress'])}"
    assert record["states"][0] == "uploading", record["states"]
    assert set(record["states"]) <= {"uploading", "processing", "queued", "running", "done"}, record["states"]
    assert re.search(r"Imported: [1-9]\d* new samples, 0 already stored, 0 rejected", record["text"]), record["text"]
    assert browser.path == "/", browser.path
    browser.assert_no_csp_violations()


def dashboard(browser):
    browser.step("the dashboard shows the rollup's summary")
    wait_for_summary(browser)
    browser.assert_assets_loaded()
    current = browser.find_all("nav.horizons a[aria-current=page]")
    assert len(current) == 1, "one horizon is the current one"
    report("default-horizon", current[0].get_attribute("href").split("horizon=")[-1])
    browser.screenshot("dashboard-1280", width=1280, full_page=True)
    browser.screenshot("dashboard-375", width=375, full_page=True)
    browser.driver.set_window_size(1280, 900)

    seen = {}
    for horizon in HORIZONS:
        browser.step(f"the horizon switch opens the {horizon} dashboard")
        browser.submit(f"nav.horizons a[href='/?horizon={horizon}']")
        browser.wait_for_path(f"/?horizon={horizon}")
        assert browser.status() == 200, browser.status()
        browser.assert_assets_loaded()
        marked = browser.find_all("nav.horizons a[aria-current=page]")
        assert [link.get_attribute("href").split("horizon=")[-1] for link in marked] == [horizon], marked
        figures = dashboard_figures(browser)
        figures["horizon"] = horizon
        report("dashboard", figures)
        seen[horizon] = charts(browser)
        total, parts = browser.page_weight()
        print(f"{horizon} dashboard: {total} bytes {parts}", flush=True)
        assert total < MOST_BYTES, f"the {horizon} dashboard transfers {total} bytes: {parts}"

    browser.step("every horizon draws other charts")
    for kind, index in (("duration", 0), ("debt", 1)):
        drawn = {horizon: charts[index] for horizon, charts in seen.items()}
        assert len(set(drawn.values())) == len(HORIZONS), f"some {kind} charts are the same"


def nights(browser, options):
    browser.step("the nights page and the CSV of the same range")
    query = f"?from={options.first}&to={options.last}"
    browser.open("/nights" + query)
    assert browser.status() == 200
    browser.assert_assets_loaded()
    shown = [row.text for row in browser.find_all("table.nights tbody tr th")]
    assert shown, "the nights page shows no night"
    link = browser.find(f"a[href='/nights.csv{query}']")
    assert link.get_attribute("download"), "the CSV link downloads"

    answer = browser.get("/nights.csv" + query)
    assert answer.status == 200, answer.status
    assert answer.headers["Content-Type"].startswith("text/csv"), answer.headers["Content-Type"]
    rows = list(csv.reader(io.StringIO(answer.text, newline="")))
    assert rows[0] == NIGHTS_HEADER, rows[0]
    days = [row[0] for row in rows[1:]]
    assert all(len(row) == len(NIGHTS_HEADER) for row in rows[1:])
    assert days == sorted(set(days)), "one row a night, in wake-day order"
    assert all(options.first <= day <= options.last for day in days), days
    assert days == shown, f"the CSV's nights {days} are not the page's {shown}"
    with open(os.path.join(options.screenshots, "nights.csv"), "wb") as file:
        file.write(answer.body)
    report("nights-csv", {"rows": len(days), "first": days[0], "last": days[-1]})


def imports(browser, options):
    browser.step("the import history shows the upload, done, with its counts")
    browser.open("/imports")
    done = browser.find_all("li.import.state-done")
    assert len(done) == 1, f"{len(done)} imports done: {browser.find('main').text[:300]}"
    assert done[0].find_element("css selector", ".file-name").text == os.path.basename(options.export)
    counts = {
        item.find_element("css selector", "dt").text: item.find_element("css selector", "dd").text
        for item in done[0].find_elements("css selector", "dl.counts > div")
    }
    assert int(counts["New"]) > 0 and counts["Already stored"] == "0" and counts["Rejected"] == "0", counts
    assert int(counts["Read"]) == int(counts["New"]), counts
    return int(counts["New"])


def export(browser, stored):
    browser.step("the settings page's download of all my data: a zip with every stored sample")
    browser.open("/settings")
    link = browser.find("a#export-download")
    assert link.get_attribute("download") is not None, "the export link downloads"
    assert link.get_attribute("href").endswith("/api/v1/me/export"), link.get_attribute("href")
    answer = browser.get("/api/v1/me/export")
    assert answer.status == 200, answer.status
    assert answer.headers["Content-Type"] == "application/zip", answer.headers["Content-Type"]
    assert answer.headers["Content-Disposition"].startswith("attachment; filename="), answer.headers
    with zipfile.ZipFile(io.BytesIO(answer.body)) as archive:
        assert archive.testzip() is None, "a damaged entry"
        names = set(archive.namelist())
        samples = archive.read("sleepledger-export/samples.csv").decode("utf-8")
    assert {"sleepledger-export/README.txt", "sleepledger-export/nights.csv",
            "sleepledger-export/summaries/weekly.json", "sleepledger-export/imports.json"} <= names, names
    rows = list(csv.reader(io.StringIO(samples, newline="")))
    assert rows[0] == ["sourceName", "startDate", "endDate", "value", "timeZone"], rows[0]
    assert len(rows) - 1 == stored, f"{len(rows) - 1} samples exported, {stored} stored"
    report("export", {"samples": len(rows) - 1, "bytes": len(answer.body)})


def quality(browser):
    for path in PAGES:
        browser.step(f"{path}: assets, no CSP violation, labelled fields, fits 375 px")
        browser.open(path)
        assert browser.status() == 200, f"{path}: {browser.status()}"
        assert browser.path == path, browser.path
        browser.assert_assets_loaded()
        browser.assert_fields_labelled()
        browser.assert_fits_width(375)
        browser.driver.set_window_size(1280, 900)
        browser.assert_no_csp_violations()


def sign_out(browser):
    browser.step("signing out ends the session, in the browser and for the old cookie")
    cookie = browser.session_cookie()
    assert cookie
    browser.submit("form.sign-out button[type=submit]")
    browser.wait_for_path("/sign-in")
    assert browser.session_cookie() is None
    browser.open("/")
    browser.wait_for_path("/sign-in")
    again = http(browser.base_url + "/", cookie=cookie)
    assert again.status == 303, again.status
    assert again.headers["Location"] == "/sign-in", again.headers["Location"]
    api = http(browser.base_url + "/api/v1/me", cookie=cookie)
    assert api.status == 401, api.status
    browser.assert_no_csp_violations()


def web_app(browser, options):
    browser.step("signing in")
    browser.sign_in(options.handle, options.password)
    upload(browser, options)
    dashboard(browser)
    nights(browser, options)
    stored = imports(browser, options)
    export(browser, stored)
    quality(browser)
    sign_out(browser)


if __name__ == "__main__":
    run(web_app, "Upload an export, check the dashboard, the nights CSV and every page, sign out.", more_arguments)
