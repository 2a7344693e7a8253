#!/usr/bin/python3
"""N pages following one recording's live list, as Server-Sent Events clients: logs in to the
console once, opens N event streams of the session and reads them until SIGTERM, then prints
how many events and bytes the streams read, and how many ended early.

    console-followers.py URL PASSWORD SESSION N
"""
import console_client
import signal
import sys
import threading

url, password, session, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def connect():
    return console_client.connect(url, timeout=30)


cookie = console_client.login(url, password)
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
