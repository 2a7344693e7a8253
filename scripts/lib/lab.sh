# The demo's lab, built on scripts/checks/lib/netns.sh (phone, gateway and server namespaces):
# the phone reaches the gateway through a WireGuard tunnel (wireguard-go, the configuration of
# scripts/lib/wireguard.sh, as on a real gateway), and the server namespace becomes a small
# world with a resolver and one web host of each kind a health app meets. Nothing leaves the
# namespaces: every address below exists only inside them.
#
#   phone   p0 172.30.77.2 ─ Wi-Fi ─ g0 172.30.77.1   gateway   (the WireGuard underlay)
#           wgphone 10.77.0.2, fd77::2 ══ wg0 10.77.0.1, fd77::1
#                                        g1 198.51.100.1 ── s0  world: the hosts of LAB_HOSTS
#
# Source it, set LAB and LAB_WORK (a directory for keys, certificates and logs), then
# lab_world_up; lab_clean removes everything (call it from a trap). In between, netns.sh's
# in_phone, in_gateway and in_server run a command in a namespace; lab_tap_up starts
# tunnelvisiond on the gateway's TUN, lab_plain_forwarding routes without it.

LAB_LIBRARY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$LAB_LIBRARY/../checks/lib/netns.sh"
source "$LAB_LIBRARY/wireguard.sh"

LAB_WORK=${LAB_WORK:-}
LAB_NETWORKS=(10.77.0.0/24 fd77::/64)
LAB_UNDERLAY_PHONE=172.30.77.2 LAB_UNDERLAY_GATEWAY=172.30.77.1 LAB_WIREGUARD_PORT=51820
LAB_PHONE_TUNNEL=wgphone LAB_GATEWAY_TUNNEL=wg0
LAB_RESOLVER=198.51.100.53
# name, IPv4, IPv6 (or -), what answers there
LAB_HOSTS=(
  "api.acme-health.example 198.51.100.10 2001:db8:100::10 nginx-tls1.3"
  "tracker.adnet.example 198.51.100.20 - nginx-tls1.2"
  "legacy.acme-health.example 198.51.100.30 - openssl-tls1.0"
  "cdn.acme-health.example 198.51.100.40 - nginx-http"
  "quic.acme-health.example 198.51.100.50 - aioquic"
)
LAB_QUIC_PYTHON=${LAB_QUIC_PYTHON:-}

# netns.sh's lab_down kills what runs in the namespaces and deletes them; these outlive them.
lab_clean() {
  lab_down
  rm -f "/var/run/wireguard/$LAB_PHONE_TUNNEL.sock" "/var/run/wireguard/$LAB_GATEWAY_TUNNEL.sock"
  rmdir /var/run/wireguard 2>/dev/null || true
  rm -rf "/etc/netns/$PHONE"
  rmdir /etc/netns 2>/dev/null || true
}

# netns.sh's lab_up, its phone link turned into the Wi-Fi under the tunnel, and the world.
lab_world_up() {
  [ -n "$LAB_WORK" ] || { echo "lab: set LAB_WORK first" >&2; return 1; }
  mkdir -p "$LAB_WORK"
  lab_clean
  lab_up
  in_phone ip route flush table main
  in_phone ip -6 route flush table main
  in_phone ip addr flush dev p0
  in_gateway ip addr flush dev g0
  in_phone ip addr add "$LAB_UNDERLAY_PHONE/24" dev p0
  in_gateway ip addr add "$LAB_UNDERLAY_GATEWAY/24" dev g0
  lab_tunnel_up
  lab_hosts_up
}

lab_wait_for_file() {
  local attempt
  for attempt in $(seq 50); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}

lab_tunnel_up() {
  local keys=$LAB_WORK/wireguard network
  wg_make_keys "$keys"
  wg_gateway_config "$keys" "$LAB_WIREGUARD_PORT" "${LAB_NETWORKS[@]}" >"$keys/wg0.conf"
  wg_phone_config "$keys" "$LAB_UNDERLAY_GATEWAY:$LAB_WIREGUARD_PORT" "$LAB_RESOLVER" "${LAB_NETWORKS[@]}" >"$keys/phone.conf"
  # In the foreground (and in the background of this shell): daemonizing re-executes itself, and
  # the namespace's process list is then the only way to find it again.
  in_gateway env WG_PROCESS_FOREGROUND=1 wireguard-go "$LAB_GATEWAY_TUNNEL" >"$LAB_WORK/wireguard-go-gateway.log" 2>&1 &
  in_phone env WG_PROCESS_FOREGROUND=1 wireguard-go "$LAB_PHONE_TUNNEL" >"$LAB_WORK/wireguard-go-phone.log" 2>&1 &
  lab_wait_for_file "/var/run/wireguard/$LAB_GATEWAY_TUNNEL.sock" && lab_wait_for_file "/var/run/wireguard/$LAB_PHONE_TUNNEL.sock" ||
    { echo "lab: wireguard-go did not start (see $LAB_WORK/wireguard-go-*.log)" >&2; return 1; }
  in_gateway wg setconf "$LAB_GATEWAY_TUNNEL" <(wg-quick strip "$keys/wg0.conf")
  in_phone wg setconf "$LAB_PHONE_TUNNEL" <(wg-quick strip "$keys/phone.conf")
  for network in "${LAB_NETWORKS[@]}"; do
    in_gateway ip addr add "$(wg_host_address "$network" 1)/${network#*/}" dev "$LAB_GATEWAY_TUNNEL"
    in_phone ip addr add "$(wg_phone_route "$network")" dev "$LAB_PHONE_TUNNEL"
  done
  in_gateway ip link set "$LAB_GATEWAY_TUNNEL" up
  in_phone ip link set "$LAB_PHONE_TUNNEL" up
  # Everything the phone sends goes into the tunnel, as with AllowedIPs = 0.0.0.0/0, ::/0.
  in_phone ip route add default dev "$LAB_PHONE_TUNNEL"
  in_phone ip -6 route add default dev "$LAB_PHONE_TUNNEL"
  # The phone's resolver, as the tunnel's DNS = line would set it.
  mkdir -p "/etc/netns/$PHONE"
  echo "nameserver $LAB_RESOLVER" >"/etc/netns/$PHONE/resolv.conf"
}

# A certificate authority of the lab's own, and one certificate per host that speaks TLS.
lab_certificates() {
  local directory=$LAB_WORK/certificates entry name
  mkdir -p "$directory"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=TunnelVision lab CA" \
    -keyout "$directory/ca.key" -out "$directory/ca.pem" 2>/dev/null
  for entry in "${LAB_HOSTS[@]}"; do
    set -- $entry
    name=$1
    [ "$4" != nginx-http ] || continue
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$directory/$name.key" \
      -out "$directory/$name.csr" 2>/dev/null
    openssl x509 -req -in "$directory/$name.csr" -CA "$directory/ca.pem" -CAkey "$directory/ca.key" \
      -days 2 -extfile <(printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n' "$name") \
      -out "$directory/$name.pem" 2>/dev/null
    cat "$directory/$name.pem" "$directory/ca.pem" >"$directory/$name.chain.pem"
  done
}

# The world: every host's addresses on the server's link, the resolver that names them, nginx
# for the TLS 1.3, TLS 1.2 and plain HTTP hosts, openssl s_server for the TLS 1.0 one, and a QUIC
# server when LAB_QUIC_PYTHON names a Python with aioquic.
lab_hosts_up() {
  local entry name v4 v6 kind directory=$LAB_WORK/certificates servers=() resolver=()
  lab_certificates
  in_server ip addr add "$LAB_RESOLVER/24" dev s0
  for entry in "${LAB_HOSTS[@]}"; do
    set -- $entry
    name=$1 v4=$2 v6=$3 kind=$4
    in_server ip addr add "$v4/24" dev s0
    resolver+=(--host-record="$name,$v4$([ "$v6" = - ] || echo ",$v6")")
    [ "$v6" = - ] || in_server ip addr add "$v6/64" dev s0 nodad
    case "$kind" in
      nginx-tls1.3|nginx-tls1.2)
        servers+=("server { listen $v4:443 ssl; $([ "$v6" = - ] || echo "listen [$v6]:443 ssl;") server_name $name;
          ssl_protocols TLSv${kind#nginx-tls}; ssl_certificate $directory/$name.chain.pem; ssl_certificate_key $directory/$name.key;
          location / { default_type application/json; return 200 '{\"host\":\"$name\"}\n'; } }") ;;
      nginx-http)
        servers+=("server { listen $v4:80; server_name $name;
          location / { default_type text/plain; return 200 'plain text from $name\n'; } }") ;;
      openssl-tls1.0)
        in_server openssl s_server -quiet -www -accept "$v4:443" -tls1 -cipher 'DEFAULT:@SECLEVEL=0' \
          -cert "$directory/$name.chain.pem" -key "$directory/$name.key" >"$LAB_WORK/s_server.log" 2>&1 & ;;
      aioquic)
        [ -z "$LAB_QUIC_PYTHON" ] ||
          in_server "$LAB_QUIC_PYTHON" "$LAB_LIBRARY/quic.py" serve "$v4" 443 "$directory/$name.chain.pem" \
            "$directory/$name.key" >"$LAB_WORK/quic-server.log" 2>&1 & ;;
    esac
  done
  in_server dnsmasq --no-resolv --no-hosts --no-daemon --bind-interfaces --listen-address="$LAB_RESOLVER" \
    --except-interface=lo --pid-file= --log-queries --log-facility=- "${resolver[@]}" >"$LAB_WORK/dnsmasq.log" 2>&1 &
  mkdir -p "$LAB_WORK/nginx"
  cat >"$LAB_WORK/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $LAB_WORK/nginx/nginx.pid;
error_log $LAB_WORK/nginx/error.log;
events { worker_connections 64; }
http {
  access_log $LAB_WORK/nginx/access.log;
  client_body_temp_path $LAB_WORK/nginx/body;
  $(printf '%s\n  ' "${servers[@]}")
}
CONF
  in_server nginx -c "$LAB_WORK/nginx/nginx.conf" -p "$LAB_WORK/nginx" >"$LAB_WORK/nginx/stdout.log" 2>&1 &
  lab_wait_for_world
}

# Until every host accepts connections (from inside the world, so nothing crosses the tap).
lab_wait_for_world() {
  local entry attempt port
  for entry in "${LAB_HOSTS[@]}"; do
    set -- $entry
    case "$4" in nginx-http) port=80 ;; aioquic) continue ;; *) port=443 ;; esac
    for attempt in $(seq 50); do
      in_server bash -c "exec 3<>/dev/tcp/$2/$port" 2>/dev/null && break
      sleep 0.1
    done
  done
}

# Plain routing for the lab itself, without the tap: forwarding and masquerade on the uplink.
lab_plain_forwarding() {
  in_gateway sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
  in_gateway nft -f - <<NFT
table inet lab_nat {
  chain post { type nat hook postrouting priority srcnat; oifname "g1" masquerade; }
}
NFT
}

# The daemon on the gateway's TUN: scripts/gateway's routing, then tunnelvisiond in the
# background (its log in LAB_WORK/tunnelvisiond.log). Takes the daemon binary and DB path.
lab_tap_up() {
  local daemon=$1 database=$2 configuration=$LAB_WORK/tunnelvisiond.conf
  cat >"$configuration" <<CONF
tun = tv0
client_interface = $LAB_GATEWAY_TUNNEL
client_network = $(IFS=,; echo "${LAB_NETWORKS[*]}")
uplink = g1
db = $database
captures = $(dirname "$database")/captures
CONF
  in_gateway "$LAB_LIBRARY/../gateway" up --config "$configuration"
  in_gateway "$daemon" --config "$configuration" >"$LAB_WORK/tunnelvisiond.log" 2>&1 &
}
