#!/usr/bin/env python3
"""Requests for several names over ONE HTTP/2 connection (connection coalescing, RFC 9113
section 9.1.1), as browsers send them to names of one certificate; curl never does.

usage: h2-coalesce.py ADDRESS SNI CAFILE AUTHORITY,METHOD,PATH,BODYBYTES ...
Prints one line per request, in order: its authority and the response status."""
import socket
import ssl
import sys

import h2.config
import h2.connection
import h2.events

address, sni, cafile = sys.argv[1:4]
context = ssl.create_default_context(cafile=cafile)
context.set_alpn_protocols(["h2"])
sock = context.wrap_socket(socket.create_connection((address, 443), timeout=5), server_hostname=sni)
if sock.selected_alpn_protocol() != "h2":
    sys.exit("the server did not choose h2")
connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
connection.initiate_connection()
sock.sendall(connection.data_to_send())

order, statuses, open_streams = [], {}, set()
for spec in sys.argv[4:]:
    authority, method, path, size = spec.split(",")
    stream = connection.get_next_available_stream_id()
    body = b"x" * int(size)
    headers = [(":method", method), (":scheme", "https"), (":authority", authority), (":path", path)]
    if body:
        headers.append(("content-length", str(len(body))))
    connection.send_headers(stream, headers, end_stream=not body)
    # Bodies stay within the first flow-control window; frames within the peer's frame size.
    step = connection.max_outbound_frame_size
    for start in range(0, len(body), step):
        connection.send_data(stream, body[start:start + step], end_stream=start + step >= len(body))
    sock.sendall(connection.data_to_send())
    order.append((stream, authority))
    open_streams.add(stream)

while open_streams:
    data = sock.recv(65536)
    if not data:
        sys.exit("the server closed before every response ended")
    for event in connection.receive_data(data):
        if isinstance(event, h2.events.ResponseReceived):
            statuses[event.stream_id] = dict(event.headers)[b":status"].decode()
        elif isinstance(event, h2.events.DataReceived):
            connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
            open_streams.discard(event.stream_id)
    sock.sendall(connection.data_to_send())
connection.close_connection()
sock.sendall(connection.data_to_send())
sock.close()
for stream, authority in order:
    print(authority, statuses.get(stream, "-"))
