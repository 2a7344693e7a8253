#!/usr/bin/env python3
"""A TLS client whose ClientHello crosses the network in many small segments, apart in time,
as a ClientHello with post-quantum key shares spans several: usage CAFILE ADDRESS NAME.
Prints the body of the server's answer to GET /."""
import socket
import ssl
import sys
import time

cafile, address, name = sys.argv[1:4]
context = ssl.create_default_context(cafile=cafile)
incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = context.wrap_bio(incoming, outgoing, server_hostname=name)
sock = socket.create_connection((address, 443), timeout=5)
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def pump():
    data = outgoing.read()
    if data:
        sock.sendall(data)


try:
    tls.do_handshake()
except ssl.SSLWantReadError:
    pass
hello = outgoing.read()
for start in range(0, len(hello), 60):
    sock.sendall(hello[start:start + 60])
    time.sleep(0.02)
while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        pump()
        incoming.write(sock.recv(65536))
pump()
tls.write(b"GET / HTTP/1.0\r\nHost: " + name.encode() + b"\r\n\r\n")
pump()
answer = b""
while True:
    data = sock.recv(65536)
    if not data:
        break
    incoming.write(data)
    try:
        answer += tls.read(65536)
    except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
        pass
print(answer.decode(errors="replace").split("\r\n\r\n")[-1].strip())
