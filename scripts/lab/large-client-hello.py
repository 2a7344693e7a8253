#!/usr/bin/env python3
"""A TLS client whose ClientHello is larger than one record (16 KiB): it offers http/1.1 and
then many long ALPN names no server knows, so the hello spans two records or more, as hellos
with several post-quantum key shares do. Usage: CAFILE ADDRESS NAME BYTES. Prints the size of
the ALPN list and the body of the server's answer to GET /."""
import socket
import ssl
import sys

cafile, address, name, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names = ["http/1.1"]
index = 0
while sum(len(n) + 1 for n in names) < size:
    names.append(("x%03d-" % index) + "y" * 240)
    index += 1
context = ssl.create_default_context(cafile=cafile)
context.set_alpn_protocols(names)
print(sum(len(n) + 1 for n in names), file=sys.stderr)
with socket.create_connection((address, 443), timeout=5) as sock:
    with context.wrap_socket(sock, server_hostname=name) as tls:
        tls.sendall(b"GET / HTTP/1.0\r\nHost: " + name.encode() + b"\r\n\r\n")
        answer = b""
        while True:
            data = tls.recv(65536)
            if not data:
                break
            answer += data
print(answer.decode(errors="replace").split("\r\n\r\n")[-1].strip())
