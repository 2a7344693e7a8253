#!/usr/bin/env python3
"""A time-stamping authority for the checks, on loopback: RFC 3161 over HTTP, each query
answered by `openssl ts -reply` with the test TSA of scripts/lab/tsa.sh.

    tsa-server.py DIR      prints the port it listens on, then serves until killed

POST /tsr answers the query; /refuse answers it from a TSA that accepts no SHA-256 (a granted
reply never comes: PKIStatus rejection); /other answers a query for other data (a token for
another digest); /broken answers HTTP 500."""
import http.server, os, subprocess, sys, tempfile

directory = sys.argv[1]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        query = self.rfile.read(length) if 0 < length <= 65536 else b""
        if self.path == "/broken" or not query:
            self.send_response(500)
            self.end_headers()
            return
        with tempfile.TemporaryDirectory(dir=directory) as work:
            query_file = os.path.join(work, "query.tsq")
            if self.path == "/other":
                other = os.path.join(work, "other")
                open(other, "wb").write(b"not the manifest\n")
                subprocess.run(["openssl", "ts", "-query", "-data", other, "-sha256", "-cert", "-out", query_file],
                               check=True, capture_output=True)
            else:
                open(query_file, "wb").write(query)
            section = ["-section", "tsa_refusing"] if self.path == "/refuse" else []
            reply = os.path.join(work, "reply.tsr")
            subprocess.run(["openssl", "ts", "-reply", "-config", os.path.join(directory, "tsa.cnf"), *section,
                            "-queryfile", query_file, "-out", reply], check=True, capture_output=True)
            body = open(reply, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/timestamp-reply")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
