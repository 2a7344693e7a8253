"""Small servers that start TLS after a cleartext prelude, for the wire lab: enough of each
protocol that `openssl s_client -starttls PROTOCOL` (or curl through a proxy) gets to its TLS
handshake, and nothing more. Each serves one connection at a time until killed.

    preludes.py smtp|imap|pop3|ftp|postgres|mysql PORT CERTIFICATE KEY
    preludes.py connect PORT TARGET_PORT        an HTTP CONNECT proxy to 127.0.0.1:TARGET_PORT
    preludes.py socks PORT                      a SOCKS5 (no authentication, or any user and
                                                password) and SOCKS4/4a CONNECT proxy
"""

import socket
import ssl
import struct
import sys
import threading


def read_line(connection):
    line = b""
    while not line.endswith(b"\n"):
        byte = connection.recv(1)
        if not byte:
            raise ConnectionError("closed before the line ended")
        line += byte
    return line


def dialogue(connection, greeting, answer, upgrades, ready, refusal):
    """A line protocol up to its upgrade: a line in `upgrades` is answered with `ready` and hands
    the connection to TLS; any other gets what `answer` gives for it, or else `refusal`."""
    connection.sendall(greeting)
    while True:
        line = read_line(connection).strip().upper()
        if line in upgrades:
            connection.sendall(ready)
            return
        connection.sendall(answer(line) or refusal)


def smtp(connection):
    def hello(line):
        return b"250-wire.test\r\n250 STARTTLS\r\n" if line.startswith((b"EHLO", b"HELO")) else None
    dialogue(connection, b"220 wire.test ESMTP ready\r\n", hello,
             (b"STARTTLS",), b"220 2.0.0 Ready to start TLS\r\n", b"502 5.5.2 Not implemented\r\n")


def imap(connection):
    connection.sendall(b"* OK [CAPABILITY IMAP4rev1 STARTTLS] wire.test ready\r\n")
    while True:
        tag, _, command = read_line(connection).strip().partition(b" ")
        if command.upper() == b"CAPABILITY":
            connection.sendall(b"* CAPABILITY IMAP4rev1 STARTTLS\r\n" + tag + b" OK done\r\n")
        elif command.upper() == b"STARTTLS":
            connection.sendall(tag + b" OK Begin TLS negotiation now\r\n")
            return
        else:
            connection.sendall(tag + b" BAD unknown\r\n")


def pop3(connection):
    dialogue(connection, b"+OK wire.test ready\r\n", {b"CAPA": b"+OK\r\nSTLS\r\n.\r\n"}.get,
             (b"STLS",), b"+OK Begin TLS\r\n", b"-ERR unknown\r\n")


def ftp(connection):
    dialogue(connection, b"220 wire.test FTP ready\r\n", {b"FEAT": b"211-Features:\r\n AUTH TLS\r\n211 End\r\n"}.get,
             (b"AUTH TLS", b"AUTH SSL"), b"234 AUTH TLS successful\r\n", b"502 unknown\r\n")


def postgres(connection):
    request = b""
    while len(request) < 8:
        request += connection.recv(8 - len(request))
    if request != struct.pack("!II", 8, 80877103):
        raise ConnectionError("not an SSLRequest")
    connection.sendall(b"S")


def mysql(connection):
    # Protocol::HandshakeV10, capabilities with CLIENT_SSL (0x800) and CLIENT_PROTOCOL_41 (0x200).
    capabilities = 0x0000_8A00 | 0x0008_0000
    greeting = (b"\x0a" + b"8.0.0-wire\x00" + struct.pack("<I", 1) + b"abcdefgh\x00"
                + struct.pack("<H", capabilities & 0xFFFF) + b"\x21" + struct.pack("<H", 2)
                + struct.pack("<H", capabilities >> 16) + b"\x15" + b"\x00" * 10 + b"ijklmnopqrst\x00"
                + b"mysql_native_password\x00")
    connection.sendall(struct.pack("<I", len(greeting))[:3] + b"\x00" + greeting)
    header = connection.recv(4, socket.MSG_WAITALL)
    length = header[0] | header[1] << 8 | header[2] << 16
    connection.recv(length, socket.MSG_WAITALL)


PRELUDES = {"smtp": smtp, "imap": imap, "pop3": pop3, "ftp": ftp, "postgres": postgres, "mysql": mysql}


def serve_tls(kind, port, certificate, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    listener = socket.create_server(("127.0.0.1", port))
    while True:
        connection, _ = listener.accept()
        try:
            PRELUDES[kind](connection)
            with context.wrap_socket(connection, server_side=True) as tls:
                tls.sendall(b"wire lab\r\n")
                tls.recv(1024)
        except (OSError, ConnectionError, ssl.SSLError):
            connection.close()


def pipe(source, destination):
    try:
        while data := source.recv(65536):
            destination.sendall(data)
    except OSError:
        pass
    finally:
        destination.close()


def serve_connect(port, target_port):
    listener = socket.create_server(("127.0.0.1", port))
    while True:
        connection, _ = listener.accept()
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = connection.recv(4096)
                if not chunk:
                    raise ConnectionError("closed in the request")
                request += chunk
            if not request.startswith(b"CONNECT "):
                connection.sendall(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                connection.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", target_port))
            connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            threading.Thread(target=pipe, args=(upstream, connection), daemon=True).start()
            threading.Thread(target=pipe, args=(connection, upstream), daemon=True).start()
        except (OSError, ConnectionError):
            connection.close()


def receive(connection, count):
    data = connection.recv(count, socket.MSG_WAITALL)
    if len(data) != count:
        raise ConnectionError("closed in the SOCKS request")
    return data


def receive_field(connection):
    """A SOCKS4 NUL-terminated field."""
    field = b""
    while (byte := receive(connection, 1)) != b"\0":
        field += byte
    return field


def socks_request(connection):
    """Reads one SOCKS CONNECT request, answers the method and authentication steps, and gives
    (version, host, port) and the grant to send once the upstream is connected."""
    version = receive(connection, 1)[0]
    if version == 4:
        command, port, address = struct.unpack("!BH4s", receive(connection, 7))
        receive_field(connection)  # the user ID
        host = receive_field(connection).decode() if address[:3] == b"\0\0\0" and address[3] else socket.inet_ntoa(address)
        return host, port, b"\x00\x5a" + struct.pack("!H", port) + address
    if version != 5:
        raise ConnectionError("not SOCKS")
    methods = receive(connection, receive(connection, 1)[0])
    if 0 in methods:
        connection.sendall(b"\x05\x00")
    elif 2 in methods:
        connection.sendall(b"\x05\x02")
        _, user_length = receive(connection, 2)
        receive(connection, user_length)
        receive(connection, receive(connection, 1)[0])
        connection.sendall(b"\x01\x00")
    else:
        connection.sendall(b"\x05\xff")
        raise ConnectionError("no method")
    _, command, _, kind = receive(connection, 4)
    if kind == 1:
        host = socket.inet_ntoa(receive(connection, 4))
    elif kind == 3:
        host = receive(connection, receive(connection, 1)[0]).decode()
    else:
        host = socket.inet_ntop(socket.AF_INET6, receive(connection, 16))
    (port,) = struct.unpack("!H", receive(connection, 2))
    if command != 1:
        raise ConnectionError("not CONNECT")
    return host, port, b"\x05\x00\x00\x01\x7f\x00\x00\x01" + struct.pack("!H", port)


def serve_socks(port):
    listener = socket.create_server(("127.0.0.1", port))
    while True:
        connection, _ = listener.accept()
        try:
            host, target_port, grant = socks_request(connection)
            upstream = socket.create_connection((host, target_port))
            connection.sendall(grant)
            threading.Thread(target=pipe, args=(upstream, connection), daemon=True).start()
            threading.Thread(target=pipe, args=(connection, upstream), daemon=True).start()
        except (OSError, ConnectionError):
            connection.close()


def main(arguments):
    if len(arguments) == 4 and arguments[0] in PRELUDES:
        serve_tls(arguments[0], int(arguments[1]), arguments[2], arguments[3])
    elif len(arguments) == 3 and arguments[0] == "connect":
        serve_connect(int(arguments[1]), int(arguments[2]))
    elif len(arguments) == 2 and arguments[0] == "socks":
        serve_socks(int(arguments[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
