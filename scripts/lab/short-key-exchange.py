#!/usr/bin/env python3
"""A TLS 1.2 client that stops making sense after the server's flight: it sends a ClientHello,
reads up to ServerHelloDone, then a ClientKeyExchange whose point is shorter than it says, so
the server (the relay) answers with an alert of its own. Usage: ADDRESS NAME. Prints the alert
description the server sent, or "none"."""
import socket
import struct
import sys

address, name = sys.argv[1:3]


def extension(kind, data):
    return struct.pack("!HH", kind, len(data)) + data


host = name.encode()
server_name = struct.pack("!HBH", len(host) + 3, 0, len(host)) + host
extensions = b"".join([
    extension(0, server_name),
    extension(10, struct.pack("!H", 4) + bytes.fromhex("001d0017")),
    extension(11, bytes([1, 0])),
    extension(13, struct.pack("!H", 6) + bytes.fromhex("040308040401")),
])
suites = bytes.fromhex("c02bc02f")
body = (b"\x03\x03" + bytes(32) + b"\x00" + struct.pack("!H", len(suites)) + suites + b"\x01\x00"
        + struct.pack("!H", len(extensions)) + extensions)
hello = b"\x01" + struct.pack("!I", len(body))[1:] + body
sock = socket.create_connection((address, 443), timeout=5)
sock.sendall(b"\x16\x03\x01" + struct.pack("!H", len(hello)) + hello)

received = b""


def record():
    global received
    while True:
        if len(received) >= 5:
            length = struct.unpack("!H", received[3:5])[0]
            if len(received) >= 5 + length:
                kind, payload = received[0], received[5:5 + length]
                received = received[5 + length:]
                return kind, payload
        data = sock.recv(65536)
        if not data:
            return None, b""
        received += data


handshake = b""
done = False
while not done:
    kind, payload = record()
    if kind is None:
        print("none")
        sys.exit(1)
    if kind == 21:
        print(payload[1])
        sys.exit(0)
    if kind != 22:
        continue
    handshake += payload
    while len(handshake) >= 4:
        length = struct.unpack("!I", b"\x00" + handshake[1:4])[0]
        if len(handshake) < 4 + length:
            break
        if handshake[0] == 14:
            done = True
        handshake = handshake[4 + length:]

# The point announces five bytes and carries one.
sock.sendall(bytes.fromhex("1603030006") + bytes.fromhex("10000002") + bytes.fromhex("0501"))
while True:
    kind, payload = record()
    if kind is None:
        print("none")
        break
    if kind == 21 and len(payload) >= 2:
        print(payload[1])
        break
