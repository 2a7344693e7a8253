#!/usr/bin/env python3
"""Opens COUNT TCP connections to HOST:PORT, sends nothing and holds them: an app whose
connection pool never closes. Prints "held N refused M" once all were tried, then holds them
until the file RELEASE exists (or HOLD seconds pass), sends a byte on each, and prints how many
the far side closed or reset.

usage: hold-connections.py HOST PORT COUNT RELEASE [HOLD]"""
import asyncio
import os
import sys


async def main():
    host, port, count, release = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    hold = float(sys.argv[5]) if len(sys.argv) > 5 else 120.0
    gate = asyncio.Semaphore(200)
    streams, refused = [], 0

    async def one():
        nonlocal refused
        async with gate:
            try:
                streams.append(await asyncio.wait_for(asyncio.open_connection(host, port), 10))
            except (OSError, asyncio.TimeoutError):
                refused += 1

    await asyncio.gather(*(one() for _ in range(count)))
    print(f"held {len(streams)} refused {refused}", flush=True)
    waited = 0.0
    while not os.path.exists(release) and waited < hold:
        await asyncio.sleep(0.2)
        waited += 0.2
    await asyncio.sleep(0.5)
    # A reset sent in a burst may be lost on the way; a byte sent now meets another for each
    # connection the far side no longer has.
    for reader, writer in streams:
        if not (reader.at_eof() or reader.exception() is not None):
            try:
                writer.write(b"x")
            except OSError:
                pass
    await asyncio.sleep(2)
    closed = sum(1 for reader, _ in streams if reader.at_eof() or reader.exception() is not None)
    print(f"closed by the far side {closed}", flush=True)
    for _, writer in streams:
        writer.close()


asyncio.run(main())
