#!/usr/bin/env python3
"""Drives fedsearchd's web dashboard in a real headless browser (Debian's chromium and
chromium-driver, through Selenium).

usage: dashboard-browser-check.py URL QUERY INDEX FACET SCREENSHOT_DIR

Opens URL, types QUERY, waits until every index's column has its answer, clicks the first
value of INDEX's FACET panel and waits for that column to narrow; then does the same on a
phone-sized window. Saves screenshots (desktop.png, phone.png) in SCREENSHOT_DIR and prints
one JSON object of what the page showed, for the caller to check; exits 1 on a failure.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, query, index, facet, shots = sys.argv[1:6]


def browser(width, height):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def column_state(driver):
    """Each column's status text and its hits' object ids."""
    out = {}
    for col in driver.find_elements(By.CSS_SELECTOR, ".column"):
        name = col.get_attribute("data-index")
        out[name] = {
            "status": col.find_element(By.CSS_SELECTOR, ".status").text,
            "ids": [h.get_attribute("data-object-id") for h in col.find_elements(By.CSS_SELECTOR, ".hit")],
            "empty": [e.text for e in col.find_elements(By.CSS_SELECTOR, ".empty")],
        }
    return out


def settled(driver):
    """Every column's status says it answered (not searching)."""
    statuses = [s.text for s in driver.find_elements(By.CSS_SELECTOR, ".column .status")]
    return statuses and all("searching" not in s and s != "waiting" for s in statuses)


def run(width, height, shot):
    driver = browser(width, height)
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 20)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".column") and settled(d))
        box = driver.find_element(By.ID, "q")
        box.send_keys(query)
        wait.until(lambda d: settled(d) and any(
            query.split()[0].lower() in h.text.lower() for h in d.find_elements(By.CSS_SELECTOR, ".column .hit")))
        before = column_state(driver)
        panel = wait.until(lambda d: d.find_element(
            By.CSS_SELECTOR, f'.facet[data-index="{index}"][data-attribute="{facet}"]'))
        first = panel.find_element(By.CSS_SELECTOR, "li")
        value = first.get_attribute("data-value")
        count = int(first.find_element(By.CSS_SELECTOR, ".count").text)
        first.click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#filters .chip") and settled(d))
        # The column's hits once the refined answer is in.
        time.sleep(0.3)
        wait.until(settled)
        after = column_state(driver)
        chips = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#filters .chip")]
        refined = [li.get_attribute("data-value") for li in driver.find_elements(By.CSS_SELECTOR, ".facet li.refined")]
        driver.save_screenshot(f"{shots}/{shot}")
        return {"before": before, "after": after, "value": value, "count": count, "chips": chips, "refined": refined,
                "summary": driver.find_element(By.ID, "summary").text}
    finally:
        driver.quit()


try:
    result = {"desktop": run(1280, 900, "desktop.png"), "phone": run(390, 844, "phone.png")}
except Exception as e:
    print(f"{type(e).__name__}: {str(e)[:2000]}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(result))
