# The relay alone in the lab (source after netns.sh and servers.sh): tvrelay in the gateway
# namespace, the nftables redirect of the phone's TCP to 443 onto its port, masquerade on the
# uplink for everything else. Used by check 70 and scripts/bench-relay.

TVRELAY=${TVRELAY:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/debug/tvrelay}
RELAY_PORT=${RELAY_PORT:-8443}

# The gateway forwards and masquerades; with $1 = redirect, the phone's TCP to 443 goes to the relay.
relay_gateway_up() {
  local mode=${1:-redirect} port=${2:-$RELAY_PORT}
  in_gateway sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
  in_gateway nft -f - <<NFT
table inet tvrelaylab {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    $( [ "$mode" = redirect ] && echo "iifname \"g0\" meta l4proto tcp th dport 443 redirect to :$port" )
  }
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "g1" masquerade
  }
}
NFT
}

relay_gateway_down() { in_gateway nft delete table inet tvrelaylab 2>/dev/null || true; }

# Starts tvrelay in the gateway namespace; its reports go to $WORK/relay.jsonl.
relay_start() {
  # Emptied here, not by the redirections below: those run in the child after the fork, and a
  # restart could otherwise read the previous relay's "listening" (and its reports) and send the
  # phone's SYN to a port nothing listens on yet, which the kernel answers with a reset.
  : >"$WORK/relay.jsonl"; : >"$WORK/relay.log"
  ip netns exec "$GATEWAY" "$TVRELAY" --port "$RELAY_PORT" --ca-key "$WORK/relay-ca.key" --ca-cert "$WORK/relay-ca.pem" "$@" \
    >>"$WORK/relay.jsonl" 2>>"$WORK/relay.log" &
  RELAY_PID=$!
  local tries=0
  until grep -q "listening" "$WORK/relay.log" 2>/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 100 ] || ! kill -0 "$RELAY_PID" 2>/dev/null; then cat "$WORK/relay.log"; return 1; fi
    sleep 0.1
  done
}

relay_stop() {
  [ -n "${RELAY_PID:-}" ] || return 0
  kill "$RELAY_PID" 2>/dev/null || true
  wait "$RELAY_PID" 2>/dev/null || true
  RELAY_PID=
}

# Waits for the Nth final report (1-based) and prints it.
relay_final_report() {
  local wanted=$1 tries=0
  until [ "$(grep -c '"final":true' "$WORK/relay.jsonl" 2>/dev/null)" -ge "$wanted" ]; do
    tries=$((tries + 1))
    [ $tries -gt 100 ] && { echo "{}"; return 1; }
    sleep 0.05
  done
  grep '"final":true' "$WORK/relay.jsonl" | sed -n "${wanted}p"
}

relay_finals() { grep -c '"final":true' "$WORK/relay.jsonl" 2>/dev/null || true; }
