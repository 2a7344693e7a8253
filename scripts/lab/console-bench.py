#!/usr/bin/python3
"""scripts/bench-web's client: times a running tvconsole over HTTP as a browser meets it.

    console-bench.py URL PASSWORD CLOSED OPEN -- COMMIT-COMMAND...

The page of the closed recording CLOSED (21 views on one kept-alive connection; the first
assesses its findings, the median of the other 20 is the figure), then 20 pages following the
open recording OPEN while COMMIT-COMMAND commits flows in another process and prints
"committed HOST EPOCH-SECONDS" after each: the time from each commit to its row on each page.
"""
import console_client
import re
import statistics
import subprocess
import sys
import threading
import time

separator = sys.argv.index("--")
url, password, closed, opened = sys.argv[1:5]
commit_command = sys.argv[separator + 1:]


def connect():
    return console_client.connect(url, timeout=60)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(-(-len(ordered) * fraction // 1)) - 1))]


def row(label, values, goal=""):
    if not values:
        print(f"{label:<56} none measured", flush=True)
        return
    print(f"{label:<56} {len(values):5d}  {percentile(values, 0.5) * 1000:8.1f} ms  {percentile(values, 0.99) * 1000:8.1f} ms"
          f"  {max(values) * 1000:8.1f} ms   {goal}", flush=True)


def views(cookie, path, count):
    connection = connect()
    times, size = [], 0
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", path, headers={"Cookie": f"tvconsole={cookie}"})
        answer = connection.getresponse()
        body = answer.read()
        times.append(time.perf_counter() - started)
        if answer.status != 200:
            sys.exit(f"{path} answered {answer.status}")
        size = len(body)
    return times, size


cookie = console_client.login(url, password)
print("measurement                                               runs    median        p99        max   goal")
render, size = views(cookie, f"/session/{closed}", 21)
first = render.pop(0)
row(f"closed recording page, 10,000 flows ({size // 1024} KiB)", render, "median <= 50 ms")
row("  its first view (assesses and keeps the findings)", [first])
flows, size = views(cookie, f"/session/{closed}/flows", 11)
first = flows.pop(0)
row(f"closed recording's flows page ({size // 1024} KiB, 1,000 rows)", flows)
row("  its first view", [first])

# 20 pages following the open recording: when each saw each host first.
seen = [dict() for _ in range(20)]
ready = threading.Barrier(21)


def follow(index):
    connection = connect()
    connection.request("GET", f"/session/{opened}/events", headers={"Cookie": f"tvconsole={cookie}"})
    answer = connection.getresponse()
    ready.wait()
    while True:
        line = answer.readline()
        if not line:
            return
        arrived = time.time()
        for host in re.findall(rb'"(push-\d+\.example)"', line):
            seen[index].setdefault(host.decode(), arrived)


for index in range(20):
    threading.Thread(target=follow, args=(index,), daemon=True).start()
ready.wait()
time.sleep(0.5)
writer = subprocess.Popen(commit_command, stdout=subprocess.PIPE, text=True)
committed = {}
for line in writer.stdout:
    match = re.match(r"committed (\S+) ([0-9.]+)", line)
    if match:
        committed[match.group(1)] = float(match.group(2))
writer.wait()
time.sleep(1.5)
latencies = [page[host] - instant for host, instant in committed.items() for page in seen if host in page]
missing = len(committed) * 20 - len(latencies)
row(f"push, commit to page (20 pages x {len(committed)} commits)", latencies, "p99 <= 1000 ms")
if missing:
    print(f"  {missing} pushes never arrived", flush=True)
