# A download server for the checks whose transfers must outlast something (source after
# netns.sh and servers.sh): big.lab on its own address, HTTP on 80 and HTTPS on 443 (a leaf of
# the lab CA), /big streams DOWNLOAD_BYTES of zeros. The phone names it with --resolve, so its
# flows carry the name the request announced (Host, SNI), not one from DNS.

DOWNLOAD_ADDRESS=198.51.100.81 DOWNLOAD_BYTES=${DOWNLOAD_BYTES:-67108864}

download_server_up() {
  local work=$1
  ip -n "$SERVER" addr add "$DOWNLOAD_ADDRESS/24" dev s0
  lab_leaf "$work" big.lab
  in_server python3 -c "
import http.server, socketserver, ssl, sys, threading
size = int(sys.argv[1])
class Big(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_GET(self):
        self.send_response(200); self.send_header('Content-Length', str(size)); self.end_headers()
        chunk, left = bytes(65536), size
        try:
            while left > 0:
                self.wfile.write(chunk[:min(left, len(chunk))]); left -= len(chunk)
        except OSError:
            pass
    def log_message(self, *arguments): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
plain = Server((sys.argv[2], 80), Big)
tls = Server((sys.argv[2], 443), Big)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(sys.argv[3], sys.argv[4])
tls.socket = context.wrap_socket(tls.socket, server_side=True)
threading.Thread(target=plain.serve_forever, daemon=True).start()
tls.serve_forever()
" "$DOWNLOAD_BYTES" "$DOWNLOAD_ADDRESS" "$work/tls/big.lab.pem" "$work/tls/big.lab.key" &
  DOWNLOAD_SERVER_PID=$!
  sleep 0.5
}

# The phone downloads big.lab/big over SCHEME (http or https) at RATE bytes a second, in the
# background (extra arguments go to curl); the pid is appended to DOWNLOAD_PIDS.
DOWNLOAD_PIDS=()
phone_download() {
  local scheme=$1 rate=$2 port=80
  shift 2
  [ "$scheme" = https ] && port=443
  in_phone curl -s -o /dev/null --limit-rate "$rate" --resolve "big.lab:$port:$DOWNLOAD_ADDRESS" "$@" "$scheme://big.lab/big" &
  DOWNLOAD_PIDS+=($!)
}

downloads_stop() {
  local pid
  for pid in "${DOWNLOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  DOWNLOAD_PIDS=()
}
