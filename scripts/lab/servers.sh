# The server side of the lab (source after netns.sh): nginx with TLS 1.3, TLS 1.2 and plain
# HTTP, an old server at TLS 1.0 (openssl s_server, @SECLEVEL=0), and dnsmasq naming each one.
# Each service has an address of its own, so a flow's name can only come from its own answer.
#
#   tls13.lab 198.51.100.13   tls12.lab 198.51.100.12   plain.lab 198.51.100.80
#   old.lab 198.51.100.10     dns (when in the server namespace) 198.51.100.53

LAB_ADDRESS6=2001:db8:100::80
declare -A LAB_ADDRESS=([tls13.lab]=198.51.100.13 [tls12.lab]=198.51.100.12 [plain.lab]=198.51.100.80 [old.lab]=198.51.100.10)

# A leaf for NAME signed by the lab CA, into WORK/tls/NAME.{key,pem}.
lab_leaf() {
  local work=$1 name=$2
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$work/tls/$name.key" -out "$work/tls/$name.csr" 2>/dev/null
  openssl x509 -req -in "$work/tls/$name.csr" -CA "$work/tls/ca.pem" -CAkey "$work/tls/ca.key" -CAcreateserial -days 2 \
    -extfile <(printf 'subjectAltName=DNS:%s' "$name") -out "$work/tls/$name.pem" 2>/dev/null
}

# The head of an nginx configuration whose files all live in DIR; the caller writes its servers
# and the closing brace of http.
nginx_preamble() {
  local dir=$1
  cat <<NGINX
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
NGINX
}

servers_up() {
  local work=$1 where=$2  # where: server | gateway (the resolver's place)
  local address name
  for address in "${LAB_ADDRESS[@]}" 198.51.100.53; do ip -n "$SERVER" addr add "$address/24" dev s0; done
  ip -n "$SERVER" addr add "$LAB_ADDRESS6/64" dev s0 nodad
  mkdir -p "$work/tls" "$work/nginx"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=lab CA" \
    -keyout "$work/tls/ca.key" -out "$work/tls/ca.pem" 2>/dev/null
  for name in tls13.lab tls12.lab old.lab; do lab_leaf "$work" "$name"; done
  { nginx_preamble "$work/nginx"; cat <<NGINX
  server { listen ${LAB_ADDRESS[tls13.lab]}:443 ssl; server_name tls13.lab;
           ssl_certificate $work/tls/tls13.lab.pem; ssl_certificate_key $work/tls/tls13.lab.key;
           ssl_protocols TLSv1.3; location / { return 200 "tls13\n"; } }
  server { listen ${LAB_ADDRESS[tls12.lab]}:443 ssl; server_name tls12.lab;
           ssl_certificate $work/tls/tls12.lab.pem; ssl_certificate_key $work/tls/tls12.lab.key;
           ssl_protocols TLSv1.2; ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256; location / { return 200 "tls12\n"; } }
  server { listen ${LAB_ADDRESS[plain.lab]}:80; listen [$LAB_ADDRESS6]:80; server_name plain.lab; location / { return 200 "plain\n"; } }
}
NGINX
  } >"$work/nginx/nginx.conf"
  in_server nginx -c "$work/nginx/nginx.conf"
  in_server setsid openssl s_server -quiet -accept "${LAB_ADDRESS[old.lab]}:443" -tls1 -cipher 'DEFAULT:@SECLEVEL=0' \
    -cert "$work/tls/old.lab.pem" -key "$work/tls/old.lab.key" -www </dev/null >"$work/old-tls.log" 2>&1 &
  local records=() resolver
  for name in "${!LAB_ADDRESS[@]}"; do records+=("--address=/$name/${LAB_ADDRESS[$name]}"); done
  # A second name of tls13.lab's address, for checks where only one phone resolves it.
  records+=("--address=/cdn.lab/${LAB_ADDRESS[tls13.lab]}")
  if [ "$where" = gateway ]; then
    resolver=10.77.0.1
    in_gateway dnsmasq --no-resolv --no-hosts --listen-address=$resolver --bind-interfaces --pid-file="$work/dnsmasq.pid" \
      --log-queries --log-facility="$work/dnsmasq.log" "${records[@]}"
  else
    resolver=198.51.100.53
    in_server dnsmasq --no-resolv --no-hosts --listen-address=$resolver --bind-interfaces --pid-file="$work/dnsmasq.pid" \
      --log-queries --log-facility="$work/dnsmasq.log" "${records[@]}"
  fi
  # `ip netns exec` gives the phone this resolver in place of the machine's own.
  mkdir -p "/etc/netns/$PHONE"
  echo "nameserver $resolver" >"/etc/netns/$PHONE/resolv.conf"
  sleep 0.5
}

servers_down() { rm -rf "/etc/netns/$PHONE"; }

# An HTTP/2 server h2.lab on ADDRESS:443 (TLS 1.3, the lab CA), answering "h2"; the phone names it with --resolve.
h2_server_up() {
  local work=$1 address=$2
  ip -n "$SERVER" addr add "$address/24" dev s0
  mkdir -p "$work/h2"
  lab_leaf "$work" h2.lab
  { nginx_preamble "$work/h2"; cat <<NGINX
  server { listen $address:443 ssl http2; server_name h2.lab;
           ssl_certificate $work/tls/h2.lab.pem; ssl_certificate_key $work/tls/h2.lab.key;
           location / { return 200 "h2\n"; } }
}
NGINX
  } >"$work/h2/nginx.conf"
  in_server nginx -c "$work/h2/nginx.conf"
}

# A server on ADDRESS:443 that is not TLS: it echoes what it gets. Its pid is ECHO_PID.
echo_server_up() {
  ip -n "$SERVER" addr add "$1/24" dev s0
  in_server python3 -c "
import socket, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('$1', 443)); s.listen(8)
def serve(c):
    while True:
        d = c.recv(65536)
        if not d: break
        c.sendall(d)
    c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
" &
  ECHO_PID=$!
}

# The phone fetches a URL by name; prints what the server said.
phone_fetch() {
  local url=$1; shift
  in_phone curl -sS --max-time 5 --cacert "$WORK/tls/ca.pem" "$@" "$url"
}
