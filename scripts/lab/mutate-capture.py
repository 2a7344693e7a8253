#!/usr/bin/env python3
"""Writes mutants of one pcap or pcapng file: the damage a hostile or broken capture carries.

usage: mutate-capture.py SOURCE OUTDIR COUNT SEED

Each mutant is one kind of damage at a place chosen by the seed, so that a run can be repeated:
the file cut short, record or block lengths set to 0, 0xFFFFFFFF or a random value, snaplen 0
or 2^31, timestamps at their extremes, link types changed, bytes flipped, and (pcapng) a second
interface of another link type carrying packets.
"""
import random
import struct
import sys
from pathlib import Path

PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}
EXTREMES = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000]


def pcap_records(data, order):
    """Offsets of each record header in a classic pcap file."""
    offsets, at = [], 24
    while at + 16 <= len(data):
        offsets.append(at)
        caplen = struct.unpack_from(order + "I", data, at + 8)[0]
        at += 16 + caplen
    return offsets


def pcapng_blocks(data):
    """(offset, type, length) of each block, and the byte order of the section."""
    order = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    blocks, at = [], 0
    while at + 12 <= len(data):
        kind, length = struct.unpack_from(order + "II", data, at)
        if length < 12 or at + length > len(data):
            break
        blocks.append((at, kind, length))
        at += length
    return blocks, order


def put32(data, at, value, order):
    if 0 <= at and at + 4 <= len(data):
        struct.pack_into(order + "I", data, at, value & 0xFFFFFFFF)


def mutate_pcap(data, order, rng):
    records = pcap_records(data, order)
    kind = rng.choice(["truncate", "caplen", "len", "ts_sec", "ts_usec", "snaplen", "linktype", "flip", "version"])
    record = rng.choice(records) if records else 24
    value = rng.choice(EXTREMES + [rng.getrandbits(32)])
    if kind == "truncate":
        del data[rng.randrange(0, len(data)):]
    elif kind == "caplen":
        put32(data, record + 8, value, order)
    elif kind == "len":
        put32(data, record + 12, value, order)
    elif kind == "ts_sec":
        put32(data, record, value, order)
    elif kind == "ts_usec":
        put32(data, record + 4, value, order)
    elif kind == "snaplen":
        put32(data, 16, rng.choice([0, 1, 1 << 31, 0xFFFFFFFF, rng.getrandbits(32)]), order)
    elif kind == "linktype":
        put32(data, 20, rng.choice([0, 1, 101, 113, 228, 229, 276, 147, rng.getrandbits(16)]), order)
    elif kind == "version":
        struct.pack_into(order + "HH", data, 4, rng.getrandbits(16), rng.getrandbits(16))
    else:
        flip(data, rng)
    return kind


def mutate_pcapng(data, rng):
    blocks, order = pcapng_blocks(data)
    kinds = ["truncate", "block_length", "trailing_length", "caplen", "ts_high", "linktype", "snaplen", "flip", "interface_id", "second_interface"]
    kind = rng.choice(kinds)
    at, block_kind, length = rng.choice(blocks) if blocks else (0, 0, 0)
    value = rng.choice(EXTREMES + [rng.getrandbits(32)])
    idbs = [b for b in blocks if b[1] == 1]
    epbs = [b for b in blocks if b[1] == 6]
    if kind == "truncate":
        del data[rng.randrange(0, len(data)):]
    elif kind == "block_length":
        put32(data, at + 4, value, order)
    elif kind == "trailing_length":
        put32(data, at + length - 4, value, order)
    elif kind == "caplen" and epbs:
        put32(data, rng.choice(epbs)[0] + 20, value, order)
    elif kind == "ts_high" and epbs:
        put32(data, rng.choice(epbs)[0] + 12, value, order)
    elif kind == "interface_id" and epbs:
        put32(data, rng.choice(epbs)[0] + 8, rng.choice([1, 2, 0xFFFFFFFF]), order)
    elif kind == "linktype" and idbs:
        struct.pack_into(order + "H", data, rng.choice(idbs)[0] + 8, rng.choice([0, 1, 101, 113, 147, rng.getrandbits(16)]))
    elif kind == "snaplen" and idbs:
        put32(data, rng.choice(idbs)[0] + 12, rng.choice([0, 1, 1 << 31, 0xFFFFFFFF]), order)
    elif kind == "second_interface" and idbs and epbs:
        # A second interface of another link type, and the second half of the packets on it.
        first = idbs[0]
        idb = bytearray(data[first[0]:first[0] + first[2]])
        current = struct.unpack_from(order + "H", idb, 8)[0]
        struct.pack_into(order + "H", idb, 8, 101 if current != 101 else 1)
        insert_at = first[0] + first[2]
        for block_at, _, _ in epbs[len(epbs) // 2:]:
            put32(data, block_at + 8, 1, order)
        data[insert_at:insert_at] = idb
    else:
        flip(data, rng)
        kind = "flip"
    return kind


def flip(data, rng):
    for _ in range(rng.randint(1, 16)):
        if data:
            data[rng.randrange(len(data))] = rng.getrandbits(8)


def main():
    source, outdir, count, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    original = source.read_bytes()
    outdir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{seed}:{source.name}")
    for index in range(count):
        data = bytearray(original)
        if original[:4] in PCAP_MAGICS:
            kind = mutate_pcap(data, PCAP_MAGICS[original[:4]], rng)
        else:
            kind = mutate_pcapng(data, rng)
        suffix = ".pcapng" if original[:4] == b"\x0a\x0d\x0d\x0a" else ".pcap"
        (outdir / f"{source.stem}.{index:04d}.{kind}{suffix}").write_bytes(bytes(data))


if __name__ == "__main__":
    main()
