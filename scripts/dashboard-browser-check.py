#!/usr/bin/env python3
"""Drives fedsearchd's web dashboard in a real headless browser (Debian's chromium and
chromium-driver, through Selenium).

usage: dashboard-browser-check.py URL QUERY INDEX FACET SLOW_INDEX SCREENSHOT_DIR

On a desktop window and a phone-sized one (390x844): opens URL and waits for every column to
answer; then, measuring layout shifts with the Layout Instability API (a PerformanceObserver
on `layout-shift`, shifts right after an input left out, as the API's cumulative score does),
types QUERY, checks that SLOW_INDEX (a backend that answers late) shows the previous query's
hits as pending while the others have answered, waits for it, clicks the first value of
INDEX's FACET panel (through the filter drawer on the phone) and waits for that column to
narrow. Saves screenshots (desktop.png, desktop-pending.png, phone.png, phone-pending.png)
in SCREENSHOT_DIR and prints one JSON object of what the page showed, for the caller to
check; exits 1 on a failure.

usage: dashboard-browser-check.py --key KEY URL SCREENSHOT_DIR
Opens URL?key=KEY and reports the columns, the address after load and what was stored.

usage: dashboard-browser-check.py --live URL INDEX OBJECT_ID SCREENSHOT_DIR COMMAND... [--then OBJECT_ID2 COMMAND2...]
Opens URL (the empty query, live by default) and waits for its answer; runs COMMAND (a write
that brings OBJECT_ID onto INDEX's first page), without touching the page, and waits for the
hit to show in INDEX's column marked fresh. With --then: creates SCREENSHOT_DIR/live-restart
and waits for SCREENSHOT_DIR/live-go (the caller restarts the daemon meanwhile), noting what
the page says, waits for it to be live again, runs COMMAND2 and waits for OBJECT_ID2 to show
fresh. Then clicks Live to switch it off. Reports the Live button's state at each step, the
columns, and how long the hits took to show.
"""
import os
import subprocess
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CLS_OBSERVER = """
window.__cls = 0; window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    window.__cls += e.value;
    window.__shifts.push({value: e.value, sources: (e.sources || []).map((s) => s.node ? (s.node.id || s.node.className || s.node.nodeName) : "?")});
  }
}).observe({type: "layout-shift", buffered: true});
"""


def browser(width, height):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CLS_OBSERVER})
    if width < 720:
        # A phone: the viewport's own size, not the window's.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
    return driver


COLUMN_STATE = """
const out = {};
for (const col of document.querySelectorAll(".column")) {
  out[col.dataset.index] = {
    status: col.querySelector(".status").textContent,
    note: col.querySelector(".note").textContent,
    stale: col.classList.contains("stale"),
    ids: [...col.querySelectorAll(".hit")].map((h) => h.dataset.objectId),
    titles: [...col.querySelectorAll(".hit .title")].map((t) => t.textContent),
    empty: [...col.querySelectorAll(".empty")].map((e) => e.textContent),
    more: !col.querySelector(".more").disabled,
  };
}
return out;
"""


def column_state(driver):
    """Each column's status text, stale note, and its hits' object ids and titles, read at once."""
    return driver.execute_script(COLUMN_STATE)


def settled(driver):
    """Every column's status says it answered (not searching)."""
    statuses = [c["status"] for c in column_state(driver).values()]
    return statuses and all("searching" not in s and s != "waiting" for s in statuses)


def run(url, query, index, facet, slow, shots, width, height, name):
    driver = browser(width, height)
    phone = width < 720
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column") and settled(d))
        time.sleep(0.3)
        driver.execute_script("window.__cls = 0; window.__shifts = [];")
        box = driver.find_element(By.ID, "q")
        box.send_keys(query)
        # The fast indices answer first; the slow one still shows the empty search's hits, marked.
        wait.until(lambda d: all(
            "searching" not in c["status"] for n, c in column_state(d).items() if n not in (slow, "__merged")))
        pending = column_state(driver)
        summary_pending = driver.find_element(By.ID, "summary").text
        driver.save_screenshot(f"{shots}/{name}-pending.png")
        wait.until(lambda d: settled(d) and any(
            query.split()[0].lower() in t.lower() for c in column_state(d).values() for t in c["titles"]))
        before = column_state(driver)
        if phone:
            driver.find_element(By.ID, "open-filters").click()
            time.sleep(0.3)
        selector = f'.facet[data-index="{index}"][data-attribute="{facet}"] li'
        first = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, selector))
        value, count = driver.execute_script(
            "const li = document.querySelector(arguments[0]); return [li.dataset.value, li.querySelector('.count').textContent];",
            selector)
        count = int(count.replace(",", ""))
        driver.find_element(By.CSS_SELECTOR, selector).click()
        if phone:
            driver.find_element(By.ID, "close-filters").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#filters .chip") and settled(d))
        time.sleep(0.3)
        wait.until(settled)
        after = column_state(driver)
        if phone:
            # The index's tab, to see its narrowed column.
            driver.find_element(By.CSS_SELECTOR, f'.tab[data-index="{index}"]').click()
            time.sleep(0.2)
        chips, refined, ranges, tabs = driver.execute_script("""
            const all = (s) => [...document.querySelectorAll(s)];
            return [all("#filters .chip").map((c) => c.textContent), all(".facet li.refined").map((li) => li.dataset.value),
                    all(".facet.range").map((p) => p.dataset.index + "." + p.dataset.attribute), all(".tab").map((t) => t.textContent)];
        """)
        cls = driver.execute_script("return window.__cls")
        shifts = driver.execute_script("return window.__shifts")
        driver.save_screenshot(f"{shots}/{name}.png")
        return {"pending": pending, "summaryPending": summary_pending, "before": before, "after": after, "value": value,
                "count": count, "chips": chips, "refined": refined, "ranges": ranges, "tabs": tabs, "cls": cls,
                "shifts": shifts, "summary": driver.find_element(By.ID, "summary").text}
    finally:
        driver.quit()


def run_with_key(url, key, shots):
    driver = browser(1280, 900)
    try:
        sep = "&" if "?" in url else "?"
        driver.get(f"{url}{sep}key={key}")
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column") and settled(d) or d.find_element(By.ID, "banner").text)
        time.sleep(0.3)
        out = {"columns": column_state(driver), "address": driver.current_url,
               "stored": driver.execute_script("return localStorage.getItem('fedsearch.apiKey')"),
               "banner": driver.find_element(By.ID, "banner").text}
        # Reloaded without the key in the address, the stored key still works.
        driver.get(url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column") and settled(d) or d.find_element(By.ID, "banner").text)
        out["afterReload"] = sorted(column_state(driver).keys())
        driver.save_screenshot(f"{shots}/key.png")
        return out
    finally:
        driver.quit()


LIVE_STATE = """
const b = document.getElementById("live");
return {pressed: b.getAttribute("aria-pressed"), text: b.textContent, summary: document.getElementById("summary").textContent};
"""


def run_live(url, index, object_id, shots, command, then=None):
    driver = browser(1280, 900)
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column") and settled(d)
                   and d.execute_script(LIVE_STATE)["text"] == "● Live")
        out = {"before": column_state(driver), "liveBefore": driver.execute_script(LIVE_STATE)}
        started = time.monotonic()
        written = subprocess.run(command, capture_output=True, text=True, timeout=60)
        out["command"] = {"status": written.returncode, "err": written.stderr[-2000:]}
        fresh = f'#col-{index} .hit.fresh[data-object-id="{object_id}"]'
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, fresh))
        out["shownAfterMs"] = round((time.monotonic() - started) * 1000)
        out["after"] = column_state(driver)
        out["freshIn"] = driver.execute_script(
            "return [...document.querySelectorAll('.hit.fresh')].map((h) => h.closest('.column').dataset.index + '/' + h.dataset.objectId)")
        driver.save_screenshot(f"{shots}/live.png")
        if then:
            second_id, second_command = then
            open(f"{shots}/live-restart", "w").close()
            summaries = set()
            deadline = time.monotonic() + 60
            while not os.path.exists(f"{shots}/live-go") and time.monotonic() < deadline:
                summaries.add(driver.execute_script(LIVE_STATE)["summary"])
                time.sleep(0.05)
            out["summariesWhileDown"] = sorted(summaries)
            wait.until(lambda d: d.execute_script(LIVE_STATE)["text"] == "● Live")
            written = subprocess.run(second_command, capture_output=True, text=True, timeout=60)
            out["secondCommand"] = {"status": written.returncode, "err": written.stderr[-2000:]}
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#col-{index} .hit.fresh[data-object-id="{second_id}"]'))
            out["afterRestart"] = column_state(driver)
        driver.find_element(By.ID, "live").click()
        wait.until(lambda d: d.execute_script(LIVE_STATE)["pressed"] == "false" and settled(d))
        out["liveAfterClick"] = driver.execute_script(LIVE_STATE)
        return out
    finally:
        driver.quit()


try:
    if sys.argv[1] == "--live":
        rest = sys.argv[6:]
        then = None
        if "--then" in rest:
            at = rest.index("--then")
            rest, then = rest[:at], (rest[at + 1], rest[at + 2:])
        result = run_live(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], rest, then)
    elif sys.argv[1] == "--key":
        result = run_with_key(sys.argv[3], sys.argv[2], sys.argv[4])
    else:
        url, query, index, facet, slow, shots = sys.argv[1:7]
        result = {"desktop": run(url, query, index, facet, slow, shots, 1280, 900, "desktop"),
                  "phone": run(url, query, index, facet, slow, shots, 390, 844, "phone")}
except Exception as e:
    print(f"{type(e).__name__}: {str(e)[:2000]}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(result))
