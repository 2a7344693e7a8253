#!/usr/bin/env python3
"""Screenshots of the web console's pages, for scripts/demo: logs in with headless Chromium and
saves the status page, the projects, and each session named on the command line.

    console-screenshots.py URL PASSWORD SPKI OUT SESSION...

SPKI is the base64 SHA-256 of the console certificate's public key: the browser accepts that
certificate and no other."""
import os, sys, tempfile, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, password, spki, out, *sessions = sys.argv[1:]
profile = tempfile.mkdtemp(prefix="tv-console-profile-")
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 f"--ignore-certificate-errors-spki-list={spki}", f"--user-data-dir={profile}"]:
    options.add_argument(argument)
driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
try:
    driver.get(url.rstrip("/") + "/login")
    driver.save_screenshot(os.path.join(out, "console-login.png"))
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form.login button").click()
    WebDriverWait(driver, 15).until(lambda d: not d.current_url.endswith("/login"))
    WebDriverWait(driver, 10).until(lambda d: "Reading the status" not in d.find_element(By.ID, "status").text)
    pages = [("console-status", "/"), ("console-projects", "/projects")] + [(f"console-session-{s}", f"/session/{s}") for s in sessions]
    for name, path in pages:
        driver.get(url.rstrip("/") + path)
        time.sleep(0.5)
        driver.save_screenshot(os.path.join(out, name + ".png"))
        print(os.path.join(out, name + ".png"))
finally:
    driver.quit()
