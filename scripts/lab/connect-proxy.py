#!/usr/bin/env python3
"""An HTTPS proxy for the lab: TLS on ADDRESS:443 with CERT and KEY, one CONNECT per
connection to a name of its table (NAME=ADDRESS), answered 200 and then carried both ways.

usage: connect-proxy.py ADDRESS CERT KEY NAME=ADDRESS ..."""
import socket
import ssl
import sys
import threading

address, certificate, key = sys.argv[1:4]
names = dict(pair.split("=", 1) for pair in sys.argv[4:])
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(certificate, key)
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((address, 443))
listener.listen(16)


def carry(source, sink):
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    try:
        sink.shutdown(socket.SHUT_WR)
    except (OSError, ValueError):
        pass


def serve(raw):
    try:
        client = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    head = b""
    while b"\r\n\r\n" not in head:
        data = client.recv(4096)
        if not data or len(head) > 65536:
            client.close()
            return
        head += data
    method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
    host, _, port = target.rpartition(":")
    if method != "CONNECT" or host not in names:
        client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        client.close()
        return
    upstream = socket.create_connection((names[host], int(port)), timeout=5)
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    rest = head.split(b"\r\n\r\n", 1)[1]
    if rest:
        upstream.sendall(rest)
    back = threading.Thread(target=carry, args=(upstream, client), daemon=True)
    back.start()
    carry(client, upstream)
    back.join(10)
    client.close()
    upstream.close()


while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
