"""A script's way into the console, for the benches: a connection and a login, as a browser
does it (the login form's cookie and token, then the password). The certificate is not checked
here: the benches measure load, not trust (check 64 pins it)."""
import http.client
import re
import ssl
import sys
import urllib.parse


def connect(url, timeout=60):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, context=ssl._create_unverified_context(), timeout=timeout)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)


def cookie_of(answer):
    match = re.search(r"tvconsole=([^;]+)", answer.getheader("Set-Cookie") or "")
    return match.group(1) if match else None


def login(url, password):
    """The logged-in session's cookie value."""
    connection = connect(url)
    connection.request("GET", "/login")
    answer = connection.getresponse()
    page = answer.read().decode()
    cookie = cookie_of(answer)
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    connection.request("POST", "/login", urllib.parse.urlencode({"csrf": token, "password": password}), {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"tvconsole={cookie}"})
    answer = connection.getresponse()
    answer.read()
    if answer.status != 303:
        sys.exit(f"login answered {answer.status}")
    return cookie_of(answer)
