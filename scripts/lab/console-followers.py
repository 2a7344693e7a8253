#!/usr/bin/python3
"""N pages following one recording's live list, as Server-Sent Events clients: logs in to the
console once, opens N event streams of the session and reads them until SIGTERM, then prints
how many events and bytes the streams read, and how many ended early.

    console-followers.py URL PASSWORD SESSION N

The console's certificate is not checked here: this measures load, not trust (check 64 pins it).
"""
import http.client
import re
import signal
import ssl
import sys
import threading
import urllib.parse

url, password, session, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
parts = urllib.parse.urlsplit(url)
context = ssl._create_unverified_context()


def connect():
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, context=context, timeout=30)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


def cookie_of(answer):
    match = re.search(r"tvconsole=([^;]+)", answer.getheader("Set-Cookie") or "")
    return match.group(1) if match else None


def login():
    connection = connect()
    connection.request("GET", "/login")
    answer = connection.getresponse()
    page = answer.read().decode()
    cookie = cookie_of(answer)
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode({"csrf": token, "password": password})
    connection.request("POST", "/login", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"tvconsole={cookie}"})
    answer = connection.getresponse()
    answer.read()
    if answer.status != 303:
        sys.exit(f"login answered {answer.status}")
    return cookie_of(answer)


cookie = login()
events = [0] * count
sizes = [0] * count
ended = [False] * count
stopping = threading.Event()


def follow(index):
    connection = connect()
    connection.request("GET", f"/session/{session}/events", headers={"Cookie": f"tvconsole={cookie}"})
    answer = connection.getresponse()
    while not stopping.is_set():
        line = answer.readline()
        if not line:
            ended[index] = not stopping.is_set()
            return
        sizes[index] += len(line)
        if line.startswith(b"event: "):
            events[index] += 1


threads = [threading.Thread(target=follow, args=(index,), daemon=True) for index in range(count)]
for thread in threads:
    thread.start()
print("following", flush=True)
signal.signal(signal.SIGTERM, lambda *_: stopping.set())
while not stopping.wait(0.5):
    pass
print(f"{count} followers read {sum(events)} events ({sum(sizes) // 1024} KiB); "
      f"fewest {min(events)}, most {max(events)}; {sum(ended)} streams ended early", flush=True)
