#!/usr/bin/env python3
"""Makes a hostile copy of an evidence bundle for check 51: tamper-bundle.py OPERATION IN.zip OUT.zip [ARG].

Operations: manifest-byte (one byte of manifest.json changed), member-changed (a line added to
flows.csv), member-added, member-removed (findings.json), member-renamed (flows.csv), resigned
ARG=DIR (manifest.json.minisig replaced by the one in DIR), duplicate (a second flows.csv after
the first), retimestamped ARG=FILE
(manifest.json.tsr replaced by FILE), path-outside (a member ../evil.txt),
huge-header (flows.csv's sizes set to 4 GiB in both its headers; its bytes stay as they are)."""
import struct, sys, zipfile

operation, source, target = sys.argv[1], sys.argv[2], sys.argv[3]
argument = sys.argv[4] if len(sys.argv) > 4 else None

with zipfile.ZipFile(source) as archive:
    infos = archive.infolist()
    folder = infos[0].filename.split("/")[0]
    members = [(info, archive.read(info)) for info in infos]

def named(name):
    return f"{folder}/{name}"

out = []
for info, data in members:
    name = info.filename
    if operation == "manifest-byte" and name == named("manifest.json"):
        index = data.index(b'"sha256"') + 12
        data = data[:index] + (b"0" if data[index:index + 1] != b"0" else b"1") + data[index + 1:]
    elif operation == "member-changed" and name == named("flows.csv"):
        data = data + b"999,added,after,export\n"
    elif operation == "member-removed" and name == named("findings.json"):
        continue
    elif operation == "member-renamed" and name == named("flows.csv"):
        info.filename = named("flows-renamed.csv")
    elif operation == "resigned" and name == named("manifest.json.minisig"):
        data = open(f"{argument}/manifest.json.minisig", "rb").read()
    elif operation == "retimestamped" and name == named("manifest.json.tsr"):
        data = open(argument, "rb").read()
    out.append((info, data))
if operation == "member-added":
    out.append((zipfile.ZipInfo(named("extra.txt")), b"added after export\n"))
if operation == "duplicate":
    out.append((zipfile.ZipInfo(named("flows.csv")), b"a second flows.csv\n"))
if operation == "path-outside":
    out.append((zipfile.ZipInfo(f"{folder}/../evil.txt"), b"outside the folder\n"))

import warnings
warnings.simplefilter("ignore")  # zipfile warns of the duplicate name this operation means to write
with zipfile.ZipFile(target, "w") as archive:
    for info, data in out:
        archive.writestr(info, data, compress_type=info.compress_type)

if operation == "huge-header":
    raw = bytearray(open(target, "rb").read())
    name = named("flows.csv").encode()
    huge = struct.pack("<II", 0xFFFFFFF0, 0xFFFFFFF0)
    position = 0
    while True:
        position = raw.index(b"PK\x03\x04", position)
        length = struct.unpack_from("<H", raw, position + 26)[0]
        if raw[position + 30:position + 30 + length] == name:
            raw[position + 18:position + 26] = huge
            break
        position += 4
    position = 0
    while True:
        position = raw.index(b"PK\x01\x02", position)
        length = struct.unpack_from("<H", raw, position + 28)[0]
        if raw[position + 46:position + 46 + length] == name:
            raw[position + 20:position + 28] = huge
            break
        position += 4
    open(target, "wb").write(bytes(raw))
