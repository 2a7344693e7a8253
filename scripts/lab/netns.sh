# Shared by the 40-* checks and scripts/bench-datapath: a phone, a gateway and a server, each
# in a network namespace of its own, joined by veth pairs. Nothing leaves the namespaces: the
# server's addresses exist only inside them, and no namespace has a route to anywhere else.
#
#   phone  p0 10.77.0.2/24 fd77::2/64 ── g0 (gateway) 10.77.0.1 fd77::1
#   server s0 198.51.100.2/24 2001:db8:100::2/64 ── g1 (gateway uplink) 198.51.100.1 2001:db8:100::1
#
# Source it, set LAB (a short prefix unique to the check), then call lab_up; lab_down runs on EXIT.

LAB=${LAB:-tvlab}
PHONE=$LAB-phone GATEWAY=$LAB-gw SERVER=$LAB-srv
SERVER4=198.51.100.2 SERVER6=2001:db8:100::2
in_phone() { ip netns exec "$PHONE" "$@"; }
in_gateway() { ip netns exec "$GATEWAY" "$@"; }
in_server() { ip netns exec "$SERVER" "$@"; }

lab_down() {
  local pid
  for pid in $(ip netns pids "$PHONE" 2>/dev/null) $(ip netns pids "$GATEWAY" 2>/dev/null) $(ip netns pids "$SERVER" 2>/dev/null); do
    kill -9 "$pid" 2>/dev/null || true
  done
  for ns in "$PHONE" "$GATEWAY" "$SERVER"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -f "/var/run/wireguard/${LAB}wg.sock" "/var/run/wireguard/${LAB}wgp.sock"
}

lab_up() {
  lab_down
  for ns in "$PHONE" "$GATEWAY" "$SERVER"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  ip link add p0 netns "$PHONE" type veth peer name g0 netns "$GATEWAY"
  ip link add s0 netns "$SERVER" type veth peer name g1 netns "$GATEWAY"
  in_phone sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  in_gateway sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  in_server sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip -n "$PHONE" addr add 10.77.0.2/24 dev p0
  ip -n "$PHONE" addr add fd77::2/64 dev p0 nodad
  ip -n "$GATEWAY" addr add 10.77.0.1/24 dev g0
  ip -n "$GATEWAY" addr add fd77::1/64 dev g0 nodad
  ip -n "$GATEWAY" addr add 198.51.100.1/24 dev g1
  ip -n "$GATEWAY" addr add 2001:db8:100::1/64 dev g1 nodad
  ip -n "$SERVER" addr add $SERVER4/24 dev s0
  ip -n "$SERVER" addr add $SERVER6/64 dev s0 nodad
  for pair in "$PHONE p0" "$GATEWAY g0" "$GATEWAY g1" "$SERVER s0"; do
    set -- $pair
    ip -n "$1" link set "$2" up
  done
  ip -n "$PHONE" route add default via 10.77.0.1
  ip -n "$PHONE" -6 route add default via fd77::1
  # The server answers the gateway's masqueraded address only: no route back to the phone.
}

# A gateway configuration for scripts/gateway and the daemon; prints its path.
lab_config() {
  local file=$1 client_interface=${2:-g0}
  cat >"$file" <<CONF
tun = tv0
client_interface = $client_interface
client_network = 10.77.0.0/24, fd77::/64
uplink = g1
tun_user = nobody-here
CONF
  echo "$file"
}

# Puts the phone behind WireGuard, as a lab runs it: wireguard-go in the phone and gateway
# namespaces (this machine has no kernel module), the veth pair only carrying the tunnel.
# The gateway's interface is $WG_GATEWAY (the client interface) and the phone's $WG_PHONE:
# named after the lab, since wireguard-go's control sockets share one directory.
WG_GATEWAY=${LAB}wg WG_PHONE=${LAB}wgp
lab_wireguard_up() {
  local work=$1
  ip -n "$PHONE" addr flush dev p0
  ip -n "$GATEWAY" addr flush dev g0
  ip -n "$PHONE" addr add 10.99.0.2/24 dev p0
  ip -n "$GATEWAY" addr add 10.99.0.1/24 dev g0
  (umask 077; wg genkey >"$work/phone.key"; wg genkey >"$work/gateway.key")
  wg pubkey <"$work/phone.key" >"$work/phone.pub"
  wg pubkey <"$work/gateway.key" >"$work/gateway.pub"
  in_gateway wireguard-go "$WG_GATEWAY" >/dev/null 2>&1 || return 1
  in_phone wireguard-go "$WG_PHONE" >/dev/null 2>&1 || return 1
  in_gateway wg set "$WG_GATEWAY" listen-port 51820 private-key "$work/gateway.key" \
    peer "$(cat "$work/phone.pub")" allowed-ips 10.77.0.2/32,fd77::2/128
  in_phone wg set "$WG_PHONE" private-key "$work/phone.key" \
    peer "$(cat "$work/gateway.pub")" endpoint 10.99.0.1:51820 allowed-ips 0.0.0.0/0,::/0 persistent-keepalive 5
  ip -n "$GATEWAY" addr add 10.77.0.1/24 dev "$WG_GATEWAY"
  ip -n "$GATEWAY" addr add fd77::1/64 dev "$WG_GATEWAY" nodad
  ip -n "$PHONE" addr add 10.77.0.2/24 dev "$WG_PHONE"
  ip -n "$PHONE" addr add fd77::2/64 dev "$WG_PHONE" nodad
  ip -n "$GATEWAY" link set "$WG_GATEWAY" up
  ip -n "$PHONE" link set "$WG_PHONE" up
  ip -n "$PHONE" route replace default dev "$WG_PHONE"
  ip -n "$PHONE" -6 route replace default dev "$WG_PHONE"
}
