#!/usr/bin/env python3
"""The web console driven by a real browser (headless Chromium over WebDriver), as a technician
uses it: log in, create a project, start a recording, mark consent while the phone's traffic
runs, watch the flows arrive, end it, read the findings, export the bundle. Then the hostile
part: markup in a name, a forged POST, eleven wrong passwords, a 10 MB body, slow clients.

Prints "ok ..." / "FAIL ..." lines like scripts/lab/expect.sh; exits 1 when anything failed.
Everything it needs comes in the environment (see the check that runs it)."""
import http.client, json, os, re, socket, ssl, subprocess, sys, time, zipfile, hashlib

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ["CONSOLE_URL"]            # https://127.0.0.1:PORT
HOST, PORT = re.match(r"https?://([^:/]+):(\d+)", BASE).groups()
PASSWORD = os.environ["CONSOLE_PASSWORD"]
SPKI = os.environ["CONSOLE_SPKI"]           # base64 SHA-256 of the certificate's public key
OUT = os.environ["SCREENSHOTS"]
DOWNLOADS = os.environ["DOWNLOADS"]
TVCTL = os.environ["TVCTL_COMMAND"].split("\x1f")   # tvctl with its --db, as a list
TRAFFIC = os.environ["PHONE_TRAFFIC"]                # a shell command: the phone's requests
JOURNAL = os.environ["CONSOLE_JOURNAL"]
PROJECT = os.environ.get("PROJECT_NAME", "Lab web %d" % time.time_ns())
failed = 0


def ok(what):
    print("ok    " + what, flush=True)


def fail(what, detail=""):
    global failed
    failed += 1
    print("FAIL  " + what, flush=True)
    for line in str(detail).splitlines()[-20:]:
        print("      " + line)


def expect(what, condition, detail=""):
    ok(what) if condition else fail(what, detail)


def tvctl(*arguments):
    return subprocess.run(TVCTL + list(arguments), capture_output=True, text=True, env=dict(os.environ, TZ="UTC"))


def shot(driver, name):
    path = os.path.join(OUT, name + ".png")
    driver.save_screenshot(path)
    print("      screenshot " + path)


def browser(width=1280, height=900):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}",
                     # The console's self-signed certificate is accepted only by its key's digest.
                     f"--ignore-certificate-errors-spki-list={SPKI}", "--user-data-dir=" + os.environ["BROWSER_PROFILE"]]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
    service = ChromeService(executable_path="/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    return driver


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def message_after(driver, pattern):
    """The page's message once it matches: a click's POST answers with a redirect, and a loaded
    machine may still show the old page, or none, when the click returns."""
    def matching(d):
        found = d.find_elements(By.ID, "message")
        return found and re.match(pattern, found[0].text) and found[0].text
    try:
        return WebDriverWait(driver, 15, poll_frequency=0.2).until(matching)
    except TimeoutException:
        found = driver.find_elements(By.ID, "message")
        return found[0].text if found else "(no message on " + driver.current_url + ")"


def no_alert(driver):
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def raw_tls(timeout=10):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection(HOST, int(PORT), timeout=timeout, context=context) if BASE.startswith("https") \
        else http.client.HTTPConnection(HOST, int(PORT), timeout=timeout)
    return connection


def request(method, path, body=None, headers=None):
    connection = raw_tls()
    connection.request(method, path, body=body, headers=headers or {})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer, data.decode("utf-8", "replace")


def login_form():
    """A fresh login form's cookie and token, as a script without a browser gets them."""
    answer, page = request("GET", "/login")
    cookie = answer.getheader("Set-Cookie").split(";")[0]
    token = re.search(r'name="csrf" value="([0-9a-f]{64})"', page).group(1)
    return cookie, token


def main():
    driver = browser()
    try:
        # Logging in.
        driver.get(BASE + "/")
        expect("not logged in, the console shows its login", driver.current_url.endswith("/login"), driver.current_url)
        shot(driver, "console-login")
        driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "form.login button").click()
        WebDriverWait(driver, 15).until(lambda d: d.current_url.rstrip("/") == BASE)
        ok("logged in: " + driver.current_url)
        cookie = driver.get_cookie("tvconsole")
        expect("the cookie is HttpOnly, Secure, SameSite=Strict",
               cookie and cookie.get("httpOnly") and cookie.get("secure") and cookie.get("sameSite") == "Strict", cookie)
        try:
            WebDriverWait(driver, 10).until(lambda d: "Reading the status" not in text(d, "status"))
        except TimeoutException:
            pass
        status_page = driver.find_element(By.ID, "status").get_attribute("textContent")
        status_cli = tvctl("status").stdout
        # Counters move between two reads; the lines and what they are about do not.
        labels = lambda s: [line.split()[0] for line in s.splitlines() if line.strip()]
        expect("the status is tvctl status's (its lines: %s)" % " ".join(labels(status_cli)),
               labels(status_page) == labels(status_cli) and "running" in status_page, f"{status_page}\n--\n{status_cli}")
        shot(driver, "console-status")

        # A project, and one named with markup.
        driver.get(BASE + "/projects")
        driver.find_element(By.NAME, "name").send_keys(PROJECT)
        driver.find_element(By.CSS_SELECTOR, "form.project button").click()
        message = message_after(driver, "Created project ")
        expect("the project was created, in tvctl's words", message.startswith("Created project ") and PROJECT in message, message)
        project_id = re.match(r"Created project (\d+)", message).group(1)
        hostile = "<script>alert(1)</script>"
        driver.find_element(By.NAME, "name").send_keys(hostile)
        driver.find_element(By.CSS_SELECTOR, "form.project button").click()
        time.sleep(0.5)
        expect("a project named with markup ran no script", no_alert(driver))
        expect("and shows its name as text", hostile in text(driver, "projects"), text(driver, "projects"))
        expect("no script element came from it", len(driver.find_elements(By.XPATH, "//main//script")) == 0)
        shot(driver, "console-projects")

        # A recording.
        driver.get(BASE + f"/project/{project_id}")
        form = driver.find_element(By.CSS_SELECTOR, "form.start")
        form.find_element(By.NAME, "release").send_keys("4.0.0")
        form.find_element(By.NAME, "build").send_keys("400")
        form.find_element(By.NAME, "device").send_keys("lab phone")
        form.find_element(By.NAME, "os").send_keys("netns")
        form.find_element(By.CSS_SELECTOR, "button").click()
        # The click's POST answers with a redirect: the address is the session's once it has loaded.
        try:
            WebDriverWait(driver, 10).until(lambda d: re.search(r"/session/(\d+)$", d.current_url))
        except TimeoutException:
            pass
        match = re.search(r"/session/(\d+)$", driver.current_url)
        expect("the recording started and its page opened", match is not None, driver.current_url + "\n" + driver.page_source[:2000])
        session = match.group(1)
        message = message_after(driver, f"Recording session {session},")
        expect("the page says what tvctl session start said", message.startswith(f"Recording session {session},"), message)

        # The phone's traffic, and "consent given" while it runs.
        traffic = subprocess.Popen(["bash", "-c", TRAFFIC], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        driver.find_element(By.ID, "mark-consent").click()
        message = message_after(driver, "consent given")
        expect("consent given, confirmed with its instant", re.match(rf"consent given at \d\d:\d\d:\d\d.* in session {session},", message) is not None, message)
        markers = json.loads(tvctl("session", "show", session, "--json").stdout).get("markers", [])
        expect("the history holds the marker", any(m.get("kind") == "consentGiven" or "consent" in json.dumps(m) for m in markers), markers)
        # Flows arrive without reloading: the table's rows grow while the page stays.
        page_id = driver.execute_script("return window.performance.timeOrigin")
        try:
            WebDriverWait(driver, 15, poll_frequency=0.2).until(
                lambda d: any("tls13.lab" in row.text for row in d.find_elements(By.CSS_SELECTOR, "#flows tbody tr")))
            ok("the phone's flows appeared live")
        except TimeoutException:
            fail("the phone's flows appeared live", driver.find_element(By.ID, "flows").text)
        expect("without a reload", driver.execute_script("return window.performance.timeOrigin") == page_id)
        traffic.wait(timeout=60)
        time.sleep(2.5)
        dom = {int(row.get_attribute("data-id")): [cell.get_attribute("textContent") for cell in row.find_elements(By.TAG_NAME, "td")]
               for row in driver.find_elements(By.CSS_SELECTOR, "#flows tbody tr")}
        listed = json.loads(tvctl("flows", session, "--json").stdout)
        ids = [flow["id"] for flow in listed["flows"]]
        expect(f"the page's rows are tvctl flows --json's ({len(ids)} flows)", sorted(dom) == sorted(ids), f"page {sorted(dom)}\ntvctl {sorted(ids)}")
        ordered = [int(row.get_attribute("data-id")) for row in driver.find_elements(By.CSS_SELECTOR, "#flows tbody tr")]
        expect("newest first", ordered == sorted(ordered, reverse=True), ordered)
        # Beyond tvctl flows's columns, each row names its phone (third) and its findings (last).
        table = tvctl("flows", session).stdout
        flows_cells = lambda cells: cells[:2] + cells[3:-1]
        mismatched = [i for i, cells in dom.items() if not any(line.split() == " ".join(flows_cells(cells)).split() for line in table.splitlines())]
        expect("each row's other cells are tvctl flows's line", not mismatched, f"{mismatched}\n{table}")
        phone = json.loads(tvctl("session", "show", session, "--json").stdout).get("phone", {}).get("name")
        phones = {cells[2] for cells in dom.values()}
        expect(f"each row names the recording's phone ({phone})", phone and phones == {phone}, phones)
        live_findings = {i: cells[-1] for i, cells in dom.items()}
        # One more request from the phone: how long until its flow is on the page (the daemon's
        # commit, at most a second after the packet, plus the push).
        highest = max(dom) if dom else 0
        started = time.time()
        subprocess.run(["bash", "-c", os.environ["PHONE_FETCH"]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fetched = time.time()
        try:
            WebDriverWait(driver, 10, poll_frequency=0.05).until(
                lambda d: any(int(r.get_attribute("data-id")) > highest for r in d.find_elements(By.CSS_SELECTOR, "#flows tbody tr")))
            arrived = time.time()
            ok(f"a new request's flow was on the page {arrived - fetched:.2f} s after the request ended ({fetched - started:.2f} s request)")
        except TimeoutException:
            fail("a new request's flow reached the page within 10 s")
        shot(driver, "console-live")
        # Every column, the findings above all, is seen without scrolling sideways: on a desktop
        # window and on a tablet held upright beside the phone.
        for width, height, name in ((1280, 900, "console-live"), (820, 1180, "console-live-tablet")):
            driver.set_window_size(width, height)
            shown, needed = driver.execute_script(
                "var box = document.querySelector('.table'); return [box.clientWidth, box.scrollWidth];")
            expect(f"at {width} px wide the flows table shows every column ({needed} px in {shown} px)", needed <= shown + 1, (shown, needed))
            page_wide = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
            expect(f"at {width} px wide the page does not scroll sideways", page_wide <= 0, page_wide)
        shot(driver, "console-live-tablet")
        driver.set_window_size(1280, 900)

        # The end, and the findings.
        driver.find_element(By.ID, "end").click()
        WebDriverWait(driver, 5).until(lambda d: not no_alert(d))
        driver.switch_to.alert.accept()
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "findings"))
        expect("the end, in tvctl's words", text(driver, "message").startswith(f"Ended session {session},"), text(driver, "message"))
        findings_page = driver.find_element(By.ID, "findings").get_attribute("textContent")
        findings_cli = tvctl("findings", session).stdout.strip("\n")
        expect("the findings are tvctl findings's, character for character", findings_page == findings_cli, f"{findings_page}\n--\n{findings_cli}")
        shot(driver, "console-findings")
        driver.get(BASE + f"/session/{session}/flows")
        shot(driver, "console-flows")
        driver.get(BASE + f"/project/{project_id}")
        shot(driver, "console-project")
        driver.get(BASE + f"/session/{session}")
        # The findings each row showed while recording are the ones tvctl findings --json puts
        # the flow behind once it ended: the same statements, in the order of the checks.
        judged = json.loads(tvctl("findings", session, "--json").stdout)
        checks = ["encryption", "tlsVersion", "host", "pinning", "consent", "certificateValidation"]
        expected = {}
        for finding in sorted(judged["findings"], key=lambda f: checks.index(f["check"])):
            for flow in finding["flows"]:
                expected.setdefault(flow, []).append(finding["statement"])
        differing = {i: (cell, expected.get(i)) for i, cell in live_findings.items()
                     if cell != (" ".join(expected[i]) if i in expected else "—")}
        behind = sum(1 for cell in live_findings.values() if cell != "—")
        expect(f"the findings each live row showed ({behind} of {len(live_findings)} rows behind one) are tvctl findings --json's",
               behind > 0 and not differing, differing)

        # Export.
        before = set(os.listdir(DOWNLOADS))
        driver.find_element(By.ID, "export").click()
        deadline = time.time() + 60
        zips = []
        while time.time() < deadline:
            zips = [n for n in set(os.listdir(DOWNLOADS)) - before if n.endswith(".zip")]
            if zips:
                break
            time.sleep(0.3)
        expect("the bundle was downloaded", len(zips) == 1, os.listdir(DOWNLOADS))
        if zips:
            path = os.path.join(DOWNLOADS, zips[0])
            test = subprocess.run(["unzip", "-tq", path], capture_output=True, text=True)
            expect("unzip -t: " + test.stdout.strip(), test.returncode == 0, test.stdout + test.stderr)
            folder = os.path.join(DOWNLOADS, "unpacked")
            subprocess.run(["unzip", "-q", "-o", path, "-d", folder], check=True)
            root = os.path.join(folder, zips[0][:-4])
            manifest = json.load(open(os.path.join(root, "manifest.json")))
            sums = "".join(f'{entry["sha256"]}  {entry["name"]}\n' for entry in manifest["files"])
            check = subprocess.run(["sha256sum", "-c", "-"], input=sums, cwd=root, capture_output=True, text=True)
            expect(f"sha256sum -c against the manifest ({len(manifest['files'])} files)", check.returncode == 0, check.stdout + check.stderr)
            session_doc = json.load(open(os.path.join(root, "session.json")))
            expect("the bundle is this session's", str(session_doc.get("id", session_doc.get("session", {}).get("id"))) == session, session_doc.keys())
        journal = open(JOURNAL).read()
        expect("the download is in the journal", re.search(rf"bundle of session {session} downloaded by 127\.0\.0\.1", journal) is not None, journal)
        expect("no key export offered (no keys kept)", not driver.find_elements(By.ID, "export-keys"))

        # The archive's line of the status panel, now that a recording has ended and the last
        # publication failed (archive-state.json as a push leaves it; the check writes it).
        driver.get(BASE + "/")
        try:
            WebDriverWait(driver, 10).until(lambda d: "Archive:" in text(d, "status"))
        except TimeoutException:
            pass
        archive_line = lambda s: [line.strip() for line in s.splitlines() if line.strip().startswith("Archive:")]
        page_line = archive_line(driver.find_element(By.ID, "status").get_attribute("textContent"))
        cli_line = archive_line(tvctl("status").stdout)
        expect("the status panel's archive line is tvctl status's: " + " ".join(cli_line),
               page_line == cli_line and len(cli_line) == 1 and "1 ended recording not yet archived; the last attempt failed" in cli_line[0],
               f"{page_line}\n--\n{cli_line}")
        shot(driver, "console-status-archive")

        # Hostile: a forged POST with the browser's own cookie but without its token.
        projects_before = tvctl("project", "list", "--json").stdout
        jar = f"tvconsole={cookie['value']}"
        answer, _ = request("POST", "/projects", body="name=forged", headers={"Cookie": jar, "Content-Type": "application/x-www-form-urlencoded"})
        expect("a POST without the token is refused (403)", answer.status == 403, answer.status)
        answer, _ = request("POST", f"/session/{session}/mark", body="what=login&csrf=" + "0" * 64, headers={"Cookie": jar, "Content-Type": "application/x-www-form-urlencoded"})
        expect("a POST with a wrong token is refused (403)", answer.status == 403, answer.status)
        expect("and nothing changed", tvctl("project", "list", "--json").stdout == projects_before)
        answer, _ = request("GET", f"/session/{session}/mark", headers={"Cookie": jar})
        expect("a GET to a change is not allowed (405)", answer.status == 405, answer.status)
        # No open redirect: whatever the path, an answer only ever sends the browser within the console.
        elsewhere = []
        for path in ["//evil.example/", "/\\evil.example/", "/login?next=https://evil.example/", "/https://evil.example/"]:
            for jar_used in [None, jar]:
                answer, _ = request("GET", path, headers={"Cookie": jar_used} if jar_used else {})
                location = answer.getheader("Location")
                if location is not None and (not location.startswith("/") or location.startswith("//") or location.startswith("/\\")):
                    elsewhere.append((path, location))
        expect("no answer redirects outside the console", not elsewhere, elsewhere)

        # Eleven wrong passwords from one client.
        form_cookie, token = login_form()
        statuses = []
        for _ in range(11):
            answer, page = request("POST", "/login", body=f"csrf={token}&password=wrong", headers={"Cookie": form_cookie, "Content-Type": "application/x-www-form-urlencoded"})
            statuses.append(answer.status)
        expect("ten wrong passwords refused, the eleventh held back (403 ×10, 429)", statuses == [403] * 10 + [429], statuses)
        expect("the eleventh says how long to wait", "Too many wrong passwords" in page and "wait" in page, page[-600:])
        time.sleep(0.3)
        journal = open(JOURNAL).read()
        expect("the journal says so", "wrong password from 127.0.0.1 (10 failures in a row); its next try waits 2 s" in journal, journal[-1500:])

        # A 10 MB body, declared and sent.
        started = time.time()
        connection = raw_tls(timeout=20)
        try:
            connection.putrequest("POST", "/projects")
            connection.putheader("Cookie", jar)
            connection.putheader("Content-Type", "application/x-www-form-urlencoded")
            connection.putheader("Content-Length", str(10 * 1024 * 1024))
            connection.endheaders()
            try:
                chunk = b"a" * 65536
                for _ in range(160):
                    connection.send(chunk)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass
            answer = connection.getresponse()
            expect(f"a 10 MB body is refused unread (413 in {time.time() - started:.2f} s)", answer.status == 413, answer.status)
        except Exception as error:
            fail("a 10 MB body is refused unread", repr(error))
        finally:
            connection.close()
        expect("and nothing changed", tvctl("project", "list", "--json").stdout == projects_before)
        answer, _ = request("GET", "/login")
        expect("the console still answers after it", answer.status == 200)

        # Slow clients: connections that send half a request and wait.
        slow = []
        for _ in range(10):
            raw = socket.create_connection((HOST, int(PORT)), timeout=5)
            if BASE.startswith("https"):
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                raw = context.wrap_socket(raw)
            raw.send(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append(raw)
        started = time.time()
        driver.get(BASE + f"/session/{session}")
        took = time.time() - started
        expect(f"with 10 slow clients holding connections, a page loads in {took:.2f} s", took < 3 and driver.find_elements(By.ID, "findings"))
        for raw in slow:
            raw.close()
    finally:
        driver.quit()
    print(f"browser: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
