# Shared by the 40-* checks and scripts/bench-datapath: a phone, a gateway and a server, each
# in a network namespace of its own, joined by veth pairs. Nothing leaves the namespaces: the
# server's addresses exist only inside them, and no namespace has a route to anywhere else.
#
#   phone  p0 10.77.0.2/24 fd77::2/64 ── g0 (gateway) 10.77.0.1 fd77::1
#   server s0 198.51.100.2/24 2001:db8:100::2/64 ── g1 (gateway uplink) 198.51.100.1 2001:db8:100::1
#
# Source it, set LAB (a short prefix unique to the check), then call lab_up; lab_down runs on EXIT.

LAB=${LAB:-tvlab}
LAB_REPOSITORY=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The phones behind WireGuard are set up with the installer's own library (and tunnelvision-phone).
source "$LAB_REPOSITORY/scripts/lib/wireguard.sh"
PHONE=$LAB-phone GATEWAY=$LAB-gw SERVER=$LAB-srv
PHONE2=$LAB-phone2 GATEWAY2=$LAB-gw2  # lab_second_gateway_up's
SERVER4=198.51.100.2 SERVER6=2001:db8:100::2
in_phone() { ip netns exec "$PHONE" "$@"; }
in_gateway() { ip netns exec "$GATEWAY" "$@"; }
in_server() { ip netns exec "$SERVER" "$@"; }

lab_down() {
  local pid
  local ns
  for ns in "$PHONE" "$GATEWAY" "$SERVER" "$PHONE2" "$GATEWAY2"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  done
  for ns in "$PHONE" "$GATEWAY" "$SERVER" "$PHONE2" "$GATEWAY2"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -f "/var/run/wireguard/${LAB}wg.sock" "/var/run/wireguard/${LAB}wgp.sock"
  rm -rf "/etc/netns/$PHONE2"
}

lab_up() {
  lab_down
  lab_namespaces "$PHONE" "$GATEWAY" "$SERVER"
  lab_bench_link "$PHONE" "$GATEWAY"
  lab_uplink "$GATEWAY" s0 198.51.100 2001:db8:100
  # The server answers the gateway's masqueraded address only: no route back to the phone.
}

# Namespaces with their loopback up and no duplicate address detection (the lab's addresses
# are its own).
lab_namespaces() {
  local ns
  for ns in "$@"; do
    ip netns add "$ns" || return 1
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  done
}

# A gateway's uplink to the server namespace: GATEWAY_NS g1 PREFIX.1 PREFIX6::1 ── SERVER_IF
# PREFIX.2 PREFIX6::2 (a /24 and a /64).
lab_uplink() {
  local gateway=$1 server_if=$2 prefix=$3 prefix6=$4
  ip link add "$server_if" netns "$SERVER" type veth peer name g1 netns "$gateway"
  ip -n "$gateway" addr add "$prefix.1/24" dev g1
  ip -n "$gateway" addr add "$prefix6::1/64" dev g1 nodad
  ip -n "$SERVER" addr add "$prefix.2/24" dev "$server_if"
  ip -n "$SERVER" addr add "$prefix6::2/64" dev "$server_if" nodad
  ip -n "$gateway" link set g1 up
  ip -n "$SERVER" link set "$server_if" up
}

# A phone's veth to its gateway: p0 10.77.0.2 fd77::2 in PHONE_NS ── g0 10.77.0.1 fd77::1 in
# GATEWAY_NS, the phone's default routes through it.
lab_bench_link() {
  local phone=$1 gateway=$2
  ip link add p0 netns "$phone" type veth peer name g0 netns "$gateway"
  ip -n "$phone" addr add 10.77.0.2/24 dev p0
  ip -n "$phone" addr add fd77::2/64 dev p0 nodad
  ip -n "$gateway" addr add 10.77.0.1/24 dev g0
  ip -n "$gateway" addr add fd77::1/64 dev g0 nodad
  ip -n "$phone" link set p0 up
  ip -n "$gateway" link set g0 up
  ip -n "$phone" route add default via 10.77.0.1
  ip -n "$phone" -6 route add default via fd77::1
}

# A second bench after lab_up (and servers_up), for checks where two daemons record at once:
# phone $PHONE2 p0 ── g0 gateway $GATEWAY2 with the first bench's addresses and interface names
# (so lab_config's file serves both), its uplink g1 198.51.101.1 2001:db8:101::1 ── s1
# 198.51.101.2 2001:db8:101::2 into the same server namespace, and the first phone's resolver.
# in_gateway2 and in_phone2 run in them; lab_down removes them.
in_phone2() { ip netns exec "$PHONE2" "$@"; }
in_gateway2() { ip netns exec "$GATEWAY2" "$@"; }
lab_second_gateway_up() {
  lab_namespaces "$PHONE2" "$GATEWAY2" || return 1
  lab_bench_link "$PHONE2" "$GATEWAY2"
  lab_uplink "$GATEWAY2" s1 198.51.101 2001:db8:101
  # The server's addresses, which live on s0, are reached through s1.
  ip -n "$GATEWAY2" route add 198.51.100.0/24 via 198.51.101.2
  ip -n "$GATEWAY2" -6 route add 2001:db8:100::/64 via 2001:db8:101::2
  if [ -e "/etc/netns/$PHONE/resolv.conf" ]; then
    mkdir -p "/etc/netns/$PHONE2"
    cp "/etc/netns/$PHONE/resolv.conf" "/etc/netns/$PHONE2/"
  fi
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
  local work=$1 keys=$1/wireguard
  ip -n "$PHONE" addr flush dev p0
  ip -n "$GATEWAY" addr flush dev g0
  ip -n "$PHONE" addr add 10.99.0.2/24 dev p0
  ip -n "$GATEWAY" addr add 10.99.0.1/24 dev g0
  # The gateway as scripts/install sets it up, with its interface and files in this run's folder.
  wg_make_gateway_key "$keys"
  wg_gateway_env "$keys" "$WG_GATEWAY" "$keys/wg0.conf" 51820 10.99.0.1:51820 10.77.0.1 10.77.0.0/24 fd77::/64
  (umask 077; wg_gateway_config "$keys" 51820 10.77.0.0/24 fd77::/64 >"$keys/wg0.conf")
  in_gateway wireguard-go "$WG_GATEWAY" >/dev/null 2>&1 || return 1
  in_gateway wg setconf "$WG_GATEWAY" <(wg-quick strip "$keys/wg0.conf") || return 1
  ip -n "$GATEWAY" addr add 10.77.0.1/24 dev "$WG_GATEWAY"
  ip -n "$GATEWAY" addr add fd77::1/64 dev "$WG_GATEWAY" nodad
  ip -n "$GATEWAY" link set "$WG_GATEWAY" up
  lab_phone_add "$work" phone >/dev/null || return 1
  lab_phone_up "$work" phone "$PHONE" "$WG_PHONE"
}

# Another phone behind the same gateway, added with tunnelvision-phone as NAME: namespace
# NAMESPACE with a veth of its own to the gateway (q0 10.98.0.2 ── g2 10.98.0.1), its tunnel
# interface IF. Prints what tunnelvision-phone printed. lab_other_phone_down NAMESPACE IF undoes it.
lab_other_phone_up() {
  local work=$1 name=$2 namespace=$3 interface=$4
  ip netns add "$namespace" || return 1
  ip -n "$namespace" link set lo up
  ip netns exec "$namespace" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip link add q0 netns "$namespace" type veth peer name g2 netns "$GATEWAY"
  ip -n "$namespace" addr add 10.98.0.2/24 dev q0
  ip -n "$GATEWAY" addr add 10.98.0.1/24 dev g2
  ip -n "$namespace" link set q0 up
  ip -n "$GATEWAY" link set g2 up
  # The printed configuration's endpoint is the gateway's 10.99.0.1, reached over this veth.
  ip -n "$namespace" route add 10.99.0.0/24 via 10.98.0.1
  lab_phone_add "$work" "$name" || return 1
  lab_phone_up "$work" "$name" "$namespace" "$interface"
}

lab_other_phone_down() {
  local namespace=$1 interface=$2 pid
  for pid in $(ip netns pids "$namespace" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  ip netns del "$namespace" 2>/dev/null || true
  rm -rf "/var/run/wireguard/$interface.sock" "/etc/netns/$namespace"
}

# tunnelvision-phone in the gateway namespace, on this run's files and history.
lab_phone_command() {
  local work=$1
  shift
  TV_WIREGUARD="$work/wireguard" TVCTL="$TVCTL" TUNNELVISION_DB="$work/history.sqlite" \
    in_gateway "$LAB_REPOSITORY/scripts/phone" "$@"
}
lab_phone_add() { lab_phone_command "$1" add "$2"; }

# Brings phone NAME up in NAMESPACE as interface IF with the configuration tunnelvision-phone
# printed for it: its keys, its addresses, the gateway as its only route.
lab_phone_up() {
  local work=$1 name=$2 namespace=$3 interface=$4 conf=$1/wireguard/phones/$2.conf address
  ip netns exec "$namespace" wireguard-go "$interface" >/dev/null 2>&1 || return 1
  ip netns exec "$namespace" wg setconf "$interface" <(wg-quick strip "$conf") || return 1
  for address in $(sed -n 's/^Address = //p' "$conf" | tr ',' ' '); do
    ip -n "$namespace" addr add "$address" dev "$interface" nodad 2>/dev/null || ip -n "$namespace" addr add "$address" dev "$interface"
  done
  ip -n "$namespace" link set "$interface" up
  ip -n "$namespace" route replace default dev "$interface"
  ip -n "$namespace" -6 route replace default dev "$interface"
}
